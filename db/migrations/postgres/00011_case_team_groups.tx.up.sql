-- Consent groups as case team members (reference §1.6). A group member has
-- a case_team_members row (member_type 'group', member_id the group id)
-- and here one row per case role of each of its mappings, plus a row with
-- case_role '' per mapping: a mapping without case roles still makes its
-- group members team members, and role-less tasks match that row as they
-- match every membership. is_owner repeats the mapping's ownership on each
-- of its rows.
CREATE TABLE case_team_group_roles (
    case_id    TEXT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    group_id   TEXT NOT NULL,
    group_role TEXT NOT NULL,
    is_owner   BOOLEAN NOT NULL DEFAULT FALSE,
    case_role  TEXT NOT NULL,
    PRIMARY KEY (case_id, group_id, group_role, case_role)
);

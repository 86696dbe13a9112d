-- Consent groups (reference §1.3): a tenant's named set of users with
-- group roles, managed by its owners. Ids are unique on the platform, as
-- the reference engine's group actors are. Deleting a tenant takes its
-- groups with it.
CREATE TABLE consent_groups (
    id            TEXT PRIMARY KEY,
    tenant        TEXT NOT NULL REFERENCES tenants (name) ON DELETE CASCADE,
    last_modified TIMESTAMP NOT NULL,
    modified_by   TEXT NOT NULL,
    version       BIGINT NOT NULL DEFAULT 1
);
--bun:split
CREATE INDEX consent_groups_tenant ON consent_groups (tenant);
--bun:split
CREATE TABLE consent_group_members (
    group_id TEXT NOT NULL REFERENCES consent_groups (id) ON DELETE CASCADE,
    user_id  TEXT NOT NULL,
    is_owner BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (group_id, user_id)
);
--bun:split
-- GET /platform/user and case membership look a user's groups up.
CREATE INDEX consent_group_members_user_id ON consent_group_members (user_id);
--bun:split
-- One row per group role, so membership SQL can join on (group, role).
CREATE TABLE consent_group_member_roles (
    group_id TEXT NOT NULL,
    user_id  TEXT NOT NULL,
    role     TEXT NOT NULL,
    PRIMARY KEY (group_id, user_id, role),
    FOREIGN KEY (group_id, user_id) REFERENCES consent_group_members (group_id, user_id) ON DELETE CASCADE
);

-- A case aggregate: its whole engine state as JSON (snapshot) with an
-- optimistic version, plus the columns lists filter and sort on.
CREATE TABLE cases (
    id              TEXT PRIMARY KEY,
    tenant          TEXT NOT NULL REFERENCES tenants (name),
    name            TEXT NOT NULL,
    definition_name TEXT NOT NULL,
    definition_hash TEXT NOT NULL REFERENCES definition_documents (hash),
    state           TEXT NOT NULL,
    failures        INTEGER NOT NULL DEFAULT 0,
    parent_case_id  TEXT NOT NULL DEFAULT '',
    root_case_id    TEXT NOT NULL,
    created_on      TIMESTAMPTZ NOT NULL,
    created_by      TEXT NOT NULL,
    last_modified   TIMESTAMPTZ NOT NULL,
    modified_by     TEXT NOT NULL,
    version         BIGINT NOT NULL,
    snapshot        TEXT NOT NULL
);
--bun:split
CREATE INDEX cases_tenant_last_modified ON cases (tenant, last_modified);
--bun:split
-- Every event of every command, in order per case: the case's history.
CREATE TABLE case_events (
    case_id TEXT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    seq     BIGINT NOT NULL,
    type    TEXT NOT NULL,
    payload TEXT NOT NULL,
    user_id TEXT NOT NULL,
    at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (case_id, seq)
);
--bun:split
CREATE TABLE case_team_members (
    case_id     TEXT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    member_type TEXT NOT NULL,
    member_id   TEXT NOT NULL,
    is_owner    BOOLEAN NOT NULL DEFAULT FALSE,
    origin      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (case_id, member_type, member_id)
);
--bun:split
-- Membership lookups go from the caller (user id, or tenant role) to cases.
CREATE INDEX case_team_members_member ON case_team_members (member_type, member_id);
--bun:split
CREATE TABLE case_team_roles (
    case_id     TEXT NOT NULL,
    member_type TEXT NOT NULL,
    member_id   TEXT NOT NULL,
    role        TEXT NOT NULL,
    PRIMARY KEY (case_id, member_type, member_id, role),
    FOREIGN KEY (case_id, member_type, member_id) REFERENCES case_team_members (case_id, member_type, member_id) ON DELETE CASCADE
);
--bun:split
CREATE TABLE plan_items (
    id            TEXT NOT NULL,
    case_id       TEXT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    definition_id TEXT NOT NULL,
    name          TEXT NOT NULL,
    type          TEXT NOT NULL,
    stage_id      TEXT NOT NULL,
    idx           INTEGER NOT NULL,
    state         TEXT NOT NULL,
    history_state TEXT NOT NULL,
    transition    TEXT NOT NULL,
    is_required   BOOLEAN NOT NULL,
    is_repeating  BOOLEAN NOT NULL,
    created_on    TIMESTAMPTZ NOT NULL,
    last_modified TIMESTAMPTZ NOT NULL,
    modified_by   TEXT NOT NULL,
    PRIMARY KEY (case_id, id)
);
--bun:split
-- GET /cases/{id}/planitems/{planItemId} looks a plan item up by id alone.
CREATE INDEX plan_items_id ON plan_items (id);
--bun:split
CREATE TABLE tasks (
    id            TEXT NOT NULL,
    case_id       TEXT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    tenant        TEXT NOT NULL,
    case_name     TEXT NOT NULL,
    task_name     TEXT NOT NULL,
    task_state    TEXT NOT NULL,
    role          TEXT NOT NULL,
    assignee      TEXT NOT NULL,
    owner         TEXT NOT NULL,
    due_date      TIMESTAMPTZ,
    created_on    TIMESTAMPTZ NOT NULL,
    created_by    TEXT NOT NULL,
    activated_on  TIMESTAMPTZ NOT NULL,
    last_modified TIMESTAMPTZ NOT NULL,
    modified_by   TEXT NOT NULL,
    input         TEXT NOT NULL,
    output        TEXT NOT NULL,
    task_model    TEXT NOT NULL,
    PRIMARY KEY (case_id, id)
);
--bun:split
CREATE INDEX tasks_id ON tasks (id);
--bun:split
CREATE INDEX tasks_tenant_state ON tasks (tenant, task_state);
--bun:split
CREATE INDEX tasks_assignee ON tasks (assignee);
--bun:split
CREATE TABLE case_files (
    case_id TEXT PRIMARY KEY REFERENCES cases (id) ON DELETE CASCADE,
    data    TEXT NOT NULL
);
--bun:split
CREATE TABLE case_identifiers (
    case_id TEXT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    tenant  TEXT NOT NULL,
    name    TEXT NOT NULL,
    value   TEXT NOT NULL,
    PRIMARY KEY (case_id, name, value)
);
--bun:split
CREATE INDEX case_identifiers_name_value ON case_identifiers (tenant, name, value);
--bun:split
-- Timers a case waits on; any replica may fire a due one, once.
CREATE TABLE case_timers (
    case_id      TEXT NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    plan_item_id TEXT NOT NULL,
    due_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (case_id, plan_item_id)
);
--bun:split
CREATE INDEX case_timers_due ON case_timers (due_at);

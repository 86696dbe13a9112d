CREATE TABLE tenants (
    name          TEXT PRIMARY KEY,
    enabled       BOOLEAN NOT NULL DEFAULT TRUE,
    created_at    TIMESTAMP NOT NULL,
    created_by    TEXT NOT NULL,
    last_modified TIMESTAMP NOT NULL,
    modified_by   TEXT NOT NULL,
    version       BIGINT NOT NULL DEFAULT 1
);
--bun:split
CREATE TABLE tenant_users (
    tenant   TEXT NOT NULL REFERENCES tenants (name) ON DELETE CASCADE,
    user_id  TEXT NOT NULL,
    name     TEXT NOT NULL DEFAULT '',
    email    TEXT NOT NULL DEFAULT '',
    is_owner BOOLEAN NOT NULL DEFAULT FALSE,
    enabled  BOOLEAN NOT NULL DEFAULT TRUE,
    PRIMARY KEY (tenant, user_id)
);
--bun:split
CREATE INDEX tenant_users_user_id ON tenant_users (user_id);
--bun:split
CREATE TABLE tenant_user_roles (
    tenant  TEXT NOT NULL,
    user_id TEXT NOT NULL,
    role    TEXT NOT NULL,
    PRIMARY KEY (tenant, user_id, role),
    FOREIGN KEY (tenant, user_id) REFERENCES tenant_users (tenant, user_id) ON DELETE CASCADE
);
--bun:split
-- Case-team membership through a tenant role looks users up by (tenant, role).
CREATE INDEX tenant_user_roles_role ON tenant_user_roles (tenant, role);

-- Definition documents are stored once per content hash; a case records the
-- hash it runs on, so a redeploy never changes a running case.
CREATE TABLE definition_documents (
    hash       TEXT PRIMARY KEY,
    xml        TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
--bun:split
-- The current version of each definition name in a tenant's repository.
CREATE TABLE definitions (
    tenant      TEXT NOT NULL REFERENCES tenants (name) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    hash        TEXT NOT NULL REFERENCES definition_documents (hash),
    case_name   TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    deployed_at TIMESTAMP NOT NULL,
    deployed_by TEXT NOT NULL,
    version     BIGINT NOT NULL DEFAULT 1,
    PRIMARY KEY (tenant, name)
);
--bun:split
-- Every deployment, for the history of a definition.
CREATE TABLE definition_deployments (
    tenant      TEXT NOT NULL,
    name        TEXT NOT NULL,
    version     BIGINT NOT NULL,
    hash        TEXT NOT NULL REFERENCES definition_documents (hash),
    deployed_at TIMESTAMP NOT NULL,
    deployed_by TEXT NOT NULL,
    PRIMARY KEY (tenant, name, version)
);

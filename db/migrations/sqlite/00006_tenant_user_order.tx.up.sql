-- The reference engine lists a tenant's owners in the order they were
-- added; rows added before this column keep user id order among themselves.
ALTER TABLE tenant_users ADD COLUMN added_seq BIGINT NOT NULL DEFAULT 0;

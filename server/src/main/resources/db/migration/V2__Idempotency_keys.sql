-- The idempotency store's table: the idempotency module's idempotency_keys.sql (schema version 1)
-- as it was when this migration was written. Until 2026-12 a Java migration ran that script from
-- the module; databases it migrated keep its history row, which the server realigns once
-- (docs/distributed.md, "Migrations"). A migration never changes: later schema changes of the
-- module come as new migrations.
-- Idempotency keys and their stored answers (Retrysafe idempotency module, schema version 1).
-- Runs unchanged on PostgreSQL 15+ and on H2 2.x in MODE=PostgreSQL.
-- Times are epoch milliseconds from the application's clock, never the database's.
-- A row is in progress while completed_at IS NULL; lease_token names its current holder.
CREATE TABLE idempotency_keys (
    account          VARCHAR(255) NOT NULL,
    route            VARCHAR(512) NOT NULL,
    idem_key         VARCHAR(255) NOT NULL,
    fingerprint      VARCHAR(64)  NOT NULL,
    lease_token      VARCHAR(64)  NOT NULL,
    lease_expires_at BIGINT       NOT NULL,
    created_at       BIGINT       NOT NULL,
    completed_at     BIGINT,
    response_status  INTEGER,
    response_headers TEXT,
    response_body    BYTEA,
    CONSTRAINT idempotency_keys_pk PRIMARY KEY (account, route, idem_key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

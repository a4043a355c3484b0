-- Webhook ids a receiver has taken on (Retrysafe webhooks module, schema version 1).
-- Runs unchanged on PostgreSQL 15+ and on H2 2.x in MODE=PostgreSQL.
-- seen_at is epoch milliseconds from the application's clock, never the database's.
-- The primary key is what makes "first time" atomic across threads and processes.
CREATE TABLE received_webhooks (
    webhook_id VARCHAR(255) NOT NULL,
    seen_at    BIGINT       NOT NULL,
    CONSTRAINT received_webhooks_pk PRIMARY KEY (webhook_id)
);
CREATE INDEX received_webhooks_seen_at ON received_webhooks (seen_at);

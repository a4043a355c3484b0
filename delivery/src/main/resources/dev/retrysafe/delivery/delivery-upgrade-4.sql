-- Brings a schema made by version 3 of delivery.sql to version 4 (webhook delivery v2): pausing an
-- endpoint, per-key ordering, custom headers per endpoint, and the trace context and ordering key
-- of each delivery. IF NOT EXISTS makes it a no-op on a schema that already has them (one made by
-- delivery.sql version 4), so a migration can run it whatever created the tables.
-- PostgreSQL 15+ and H2 2.x.
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS paused_at BIGINT;
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS ordered BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS custom_headers VARCHAR(16384);
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS ordering_key VARCHAR(255);
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS traceparent VARCHAR(128);
-- Retention: the purge finds old deliveries from here, oldest first.
CREATE INDEX IF NOT EXISTS deliveries_created ON deliveries (created_at, id);
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS ordering_seq BIGINT;
CREATE INDEX IF NOT EXISTS deliveries_ordering ON deliveries (endpoint_id, ordering_key, ordering_seq);
CREATE TABLE IF NOT EXISTS delivery_ordering_keys (
    endpoint_id  VARCHAR(64)  NOT NULL,
    ordering_key VARCHAR(255) NOT NULL,
    last_seq     BIGINT       NOT NULL,
    CONSTRAINT delivery_ordering_keys_pk PRIMARY KEY (endpoint_id, ordering_key)
);

-- Webhook delivery v2 (docs/webhooks.md): the delivery module's schema version 4 (its
-- delivery-upgrade-4.sql as it was when this migration was written: pausing an endpoint, per-key
-- ordering, custom headers, the ordering key and trace context of each delivery), and the same
-- two fields on the events that GET /v1/events shows. A migration never changes.
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS paused_at BIGINT;
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS ordered BOOLEAN DEFAULT FALSE NOT NULL;
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS custom_headers VARCHAR(16384);
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS ordering_key VARCHAR(255);
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS traceparent VARCHAR(128);
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS ordering_seq BIGINT;
CREATE INDEX IF NOT EXISTS deliveries_ordering ON deliveries (endpoint_id, ordering_key, ordering_seq);
CREATE TABLE IF NOT EXISTS delivery_ordering_keys (
    endpoint_id  VARCHAR(64)  NOT NULL,
    ordering_key VARCHAR(255) NOT NULL,
    last_seq     BIGINT       NOT NULL,
    CONSTRAINT delivery_ordering_keys_pk PRIMARY KEY (endpoint_id, ordering_key)
);

-- The entity whose events an ordered endpoint receives in commit order (payment.* and refund.*:
-- the payment's id), and the W3C traceparent of the request that caused the event. NULL: none.
ALTER TABLE events ADD COLUMN ordering_key VARCHAR(255);
ALTER TABLE events ADD COLUMN traceparent VARCHAR(128);

-- Retention (webhooks.retention): the purge finds old deliveries and old events from here.
CREATE INDEX IF NOT EXISTS deliveries_created ON deliveries (created_at, id);
CREATE INDEX events_created ON events (created_at, id);

-- Delivery schema version 1 to 3 (the delivery module's delivery-upgrade-2.sql and
-- delivery-upgrade-3.sql): the per-endpoint rate limit, and the attempts' index by start time.
-- Every statement is IF NOT EXISTS, so it changes nothing where V3 made version 3 already.

-- Brings a schema made by version 1 of delivery.sql to version 2: the optional per-endpoint rate
-- limit and the rate's shared schedule. IF NOT EXISTS makes it a no-op on a schema that already
-- has them (one made by delivery.sql version 2), so a migration can run it whatever created the
-- tables. PostgreSQL 15+ and H2 2.x.
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS rate_limit INTEGER;
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS rate_next_slot_ns BIGINT;

-- Brings a schema made by version 2 of delivery.sql to version 3: the index by start time that
-- endpoint health and attempt statistics read a time window with. IF NOT EXISTS makes it a no-op
-- on a schema that already has it. PostgreSQL 15+ and H2 2.x.
CREATE INDEX IF NOT EXISTS delivery_attempts_started ON delivery_attempts (started_at);

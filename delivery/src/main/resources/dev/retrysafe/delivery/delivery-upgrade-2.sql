-- Brings a schema made by version 1 of delivery.sql to version 2: the optional per-endpoint rate
-- limit and the rate's shared schedule. IF NOT EXISTS makes it a no-op on a schema that already
-- has them (one made by delivery.sql version 2), so a migration can run it whatever created the
-- tables. PostgreSQL 15+ and H2 2.x.
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS rate_limit INTEGER;
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS rate_next_slot_ns BIGINT;

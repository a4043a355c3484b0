-- Brings a schema made by version 2 of delivery.sql to version 3: the index by start time that
-- endpoint health and attempt statistics read a time window with. IF NOT EXISTS makes it a no-op
-- on a schema that already has it. PostgreSQL 15+ and H2 2.x.
CREATE INDEX IF NOT EXISTS delivery_attempts_started ON delivery_attempts (started_at);

-- The indexes the dashboard's reads need: delivery schema version 3 (attempts by start time, for
-- endpoint health and hourly statistics; the delivery module's delivery-upgrade-3.sql) and jobs
-- schema version 2 (an account's jobs newest first; the jobs module's jobs-upgrade-2.sql). A
-- database created after the change got them from V3 and V4 already; the statements are
-- IF NOT EXISTS and change nothing there.

-- Brings a schema made by version 2 of delivery.sql to version 3: the index by start time that
-- endpoint health and attempt statistics read a time window with. IF NOT EXISTS makes it a no-op
-- on a schema that already has it. PostgreSQL 15+ and H2 2.x.
CREATE INDEX IF NOT EXISTS delivery_attempts_started ON delivery_attempts (started_at);

-- Brings a schema made by version 1 of jobs.sql to version 2: the index that lists an owner's
-- jobs newest first. IF NOT EXISTS makes it a no-op on a schema that already has it (one made by
-- jobs.sql version 2), so a migration can run it whatever created the tables. PostgreSQL 15+ and H2 2.x.
CREATE INDEX IF NOT EXISTS jobs_owner_created ON jobs (owner, created_at, id);

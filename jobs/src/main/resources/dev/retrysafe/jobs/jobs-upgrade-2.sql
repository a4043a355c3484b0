-- Brings a schema made by version 1 of jobs.sql to version 2: the index that lists an owner's
-- jobs newest first. IF NOT EXISTS makes it a no-op on a schema that already has it (one made by
-- jobs.sql version 2), so a migration can run it whatever created the tables. PostgreSQL 15+ and H2 2.x.
CREATE INDEX IF NOT EXISTS jobs_owner_created ON jobs (owner, created_at, id);

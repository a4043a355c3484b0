-- Brings a schema made by version 4 of delivery.sql to version 5: the index by (status, endpoint,
-- due time) replaces the one by (status, endpoint, lease end), so that a claim reads the due
-- deliveries of each open endpoint up to its free slots instead of walking every due delivery in
-- due order (a backlog of 1,000,000 cost each delivery 134 index entries). While claimed,
-- next_attempt_at equals lease_expires_at, so the live claims per endpoint come from it too.
-- The index on lease_token goes: every write to a claimed delivery finds it by id, and each claim
-- and finish of a delivery had to update it.
-- IF EXISTS / IF NOT EXISTS make it a no-op where it is applied. PostgreSQL 15+ and H2 2.x.
DROP INDEX IF EXISTS deliveries_status_endpoint;
CREATE INDEX IF NOT EXISTS deliveries_endpoint_due ON deliveries (status, endpoint_id, next_attempt_at, id);
DROP INDEX IF EXISTS deliveries_lease_token;

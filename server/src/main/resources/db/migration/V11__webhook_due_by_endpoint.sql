-- The delivery module's schema version 5 (its delivery-upgrade-5.sql as it was when this
-- migration was written): the dispatcher's claim reads each open endpoint's due deliveries up to
-- its free slots from an index by (status, endpoint, due time), which replaces the one by
-- (status, endpoint, lease end); the index on the lease token goes (every write to a claimed
-- delivery finds it by id). A migration never changes.
DROP INDEX IF EXISTS deliveries_status_endpoint;
CREATE INDEX IF NOT EXISTS deliveries_endpoint_due ON deliveries (status, endpoint_id, next_attempt_at, id);
DROP INDEX IF EXISTS deliveries_lease_token;

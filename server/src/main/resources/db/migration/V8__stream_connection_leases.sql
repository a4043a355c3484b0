-- The live streams open on every instance, so that streams.max_connections_per_account holds
-- across instances (docs/live-events.md). A stream holds one row while it is open; its instance
-- renews the expiry of all its rows with one UPDATE per heartbeat and deletes a row when its stream
-- closes. A row past its expiry (its instance was killed, or cut off from the database for a whole
-- lease) no longer counts, and the next admission for its account deletes it. Times are epoch
-- milliseconds from the instances' clocks. Only PostgreSQL uses the table (the embedded mode has
-- one instance and counts in memory); it is created on H2 as well, so both schemas stay the same.
CREATE TABLE stream_leases (
    instance_id    VARCHAR(64) NOT NULL,
    connection_id  VARCHAR(64) NOT NULL,
    account_id     VARCHAR(40) NOT NULL REFERENCES accounts (id),
    expires_at     BIGINT      NOT NULL,
    CONSTRAINT stream_leases_pk PRIMARY KEY (instance_id, connection_id)
);
-- An admission counts its account's rows (and deletes the expired ones) under the account's row lock.
CREATE INDEX stream_leases_account ON stream_leases (account_id, expires_at);

-- Positions of events in each account's live stream (GET /v1/events/stream, docs/live-events.md).
-- An event is written with seq NULL, so the transaction that records it takes no extra lock; the
-- stream numbers committed events afterwards, one account at a time, under the lock of the
-- account's event_streams row. Runs on PostgreSQL and on H2 in PostgreSQL mode.
ALTER TABLE events ADD COLUMN seq BIGINT;
-- Unique per account; NULLs (not numbered yet) are distinct on both databases.
CREATE UNIQUE INDEX events_account_seq ON events (account_id, seq);

-- The last position given in each account's stream; made on first use.
CREATE TABLE event_streams (
    account_id  VARCHAR(40) NOT NULL PRIMARY KEY REFERENCES accounts (id),
    last_seq    BIGINT      NOT NULL
);

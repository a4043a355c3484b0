-- Webhook endpoints, deliveries and their attempt log (Retrysafe delivery module, schema version 5).
-- Runs unchanged on PostgreSQL 15+ and on H2 2.x in MODE=PostgreSQL.
-- Times are epoch milliseconds from the application's clock, never the database's (one
-- exception, named so: rate_next_slot_ns). A database made by an earlier version of this
-- script is brought up to this one by the upgrade scripts (delivery-upgrade-<version>.sql).
--
-- webhook_endpoints.secret and previous_secret hold whsec_ secrets in clear text: the sender
-- needs the key itself to sign. Encrypt them at rest (disk or tablespace encryption) and keep
-- them out of logs and dumps; the library never logs them.
-- rate_limit is the most attempts per second (1..10000), NULL for no limit; rate_next_slot_ns
-- the earliest start of the endpoint's next attempt (epoch nanoseconds: at 10,000/s slots are
-- 100 us apart), moved forward by every claim that reserves attempt slots (both since version 2).
-- Since version 4: paused_at is when the endpoint was paused (NULL: not paused; nothing is
-- attempted while paused, nothing fails); ordered: the events of one ordering key reach it one at
-- a time in commit order; custom_headers are the headers sent on every attempt (one "name: value"
-- line per header, joined by a line feed; kept like the secrets: never shown again except their
-- names, never logged).
CREATE TABLE webhook_endpoints (
    id                         VARCHAR(64)   NOT NULL,
    account_id                 VARCHAR(255)  NOT NULL,
    url                        VARCHAR(2048) NOT NULL,
    description                VARCHAR(1024) NOT NULL,
    enabled                    BOOLEAN       NOT NULL,
    disabled_reason            VARCHAR(32),
    secret                     VARCHAR(128)  NOT NULL,
    previous_secret            VARCHAR(128),
    previous_secret_expires_at BIGINT,
    created_at                 BIGINT        NOT NULL,
    updated_at                 BIGINT        NOT NULL,
    failing_since              BIGINT,
    not_before                 BIGINT,
    rate_limit                 INTEGER,
    rate_next_slot_ns          BIGINT,
    paused_at                  BIGINT,
    ordered                    BOOLEAN       DEFAULT FALSE NOT NULL,
    custom_headers             VARCHAR(16384),
    CONSTRAINT webhook_endpoints_pk PRIMARY KEY (id)
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, id);
-- One row per subscribed event type; '*' subscribes to every type.
CREATE TABLE webhook_endpoint_event_types (
    endpoint_id VARCHAR(64)  NOT NULL,
    event_type  VARCHAR(255) NOT NULL,
    CONSTRAINT webhook_endpoint_event_types_pk PRIMARY KEY (endpoint_id, event_type),
    CONSTRAINT webhook_endpoint_event_types_endpoint FOREIGN KEY (endpoint_id)
        REFERENCES webhook_endpoints (id) ON DELETE CASCADE
);
-- One row per (event, endpoint). No foreign key to webhook_endpoints on purpose: the outbox
-- writes here inside the caller's business transaction, which must never fail because an
-- endpoint was deleted at the same moment. next_attempt_at is NULL once the delivery is
-- finished (succeeded or failed); while claimed it equals lease_expires_at, so one index on
-- next_attempt_at finds both due deliveries and the claims of dead instances. Since version 4:
-- ordering_key is the event's ordering key (NULL: none), traceparent the W3C trace context of the
-- request that caused the event, sent on every attempt (NULL: none); ordering_seq its place among
-- the deliveries of its key to an ordered endpoint, in commit order (NULL: not ordered). A pending
-- delivery with next_attempt_at NULL is held: its endpoint is paused, or it waits for the one
-- before it in its key (docs/webhooks.md); held rows are not in the due index's way.
CREATE TABLE deliveries (
    id               VARCHAR(64)  NOT NULL,
    endpoint_id      VARCHAR(64)  NOT NULL,
    account_id       VARCHAR(255) NOT NULL,
    event_id         VARCHAR(255) NOT NULL,
    event_type       VARCHAR(255) NOT NULL,
    payload          BYTEA        NOT NULL,
    status           VARCHAR(16)  NOT NULL,
    attempts         INTEGER      NOT NULL,
    next_attempt_at  BIGINT,
    lease_owner      VARCHAR(128),
    lease_token      VARCHAR(64),
    lease_expires_at BIGINT,
    created_at       BIGINT       NOT NULL,
    last_attempt_at  BIGINT,
    last_outcome     VARCHAR(32),
    last_status_code INTEGER,
    ordering_key     VARCHAR(255),
    traceparent      VARCHAR(128),
    ordering_seq     BIGINT,
    CONSTRAINT deliveries_pk PRIMARY KEY (id),
    CONSTRAINT deliveries_event_endpoint UNIQUE (event_id, endpoint_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at);
-- The due deliveries of one endpoint, oldest first (pending: due; delivering: a claim whose lease
-- ends at next_attempt_at), and the live claims per endpoint: a claim on PostgreSQL reads only the
-- free slots of each open endpoint from here, whatever the backlog (since version 5; before:
-- deliveries_status_endpoint on status, endpoint_id, lease_expires_at). Every write to a claimed
-- delivery finds it by id and checks its lease_token, so the token has no index (since version 5;
-- before: deliveries_lease_token, which every claim and finish of a delivery had to update).
CREATE INDEX deliveries_endpoint_due ON deliveries (status, endpoint_id, next_attempt_at, id);
CREATE INDEX deliveries_endpoint_id ON deliveries (endpoint_id, id);
-- Retention (since version 4): the purge finds old deliveries from here, oldest first.
CREATE INDEX deliveries_created ON deliveries (created_at, id);
-- The deliveries of one key of an ordered endpoint in commit order: which one is next (since version 4).
CREATE INDEX deliveries_ordering ON deliveries (endpoint_id, ordering_key, ordering_seq);
-- One row per (ordered endpoint, ordering key) (since version 4): the fan-out locks it to number
-- the key's deliveries, so concurrent transactions with events of one key are numbered in the order
-- they commit (the second waits for the first's commit), and the dispatcher locks it when a
-- delivery of the key finishes, to make the next one due. No foreign key, like deliveries.
CREATE TABLE delivery_ordering_keys (
    endpoint_id  VARCHAR(64)  NOT NULL,
    ordering_key VARCHAR(255) NOT NULL,
    last_seq     BIGINT       NOT NULL,
    CONSTRAINT delivery_ordering_keys_pk PRIMARY KEY (endpoint_id, ordering_key)
);
-- Every attempt, as it happened; attempt_number may repeat if a lease was lost mid-attempt.
CREATE TABLE delivery_attempts (
    id               VARCHAR(64)   NOT NULL,
    delivery_id      VARCHAR(64)   NOT NULL,
    attempt_number   INTEGER       NOT NULL,
    started_at       BIGINT        NOT NULL,
    outcome          VARCHAR(32)   NOT NULL,
    status_code      INTEGER,
    latency_ms       BIGINT        NOT NULL,
    response_snippet VARCHAR(1024) NOT NULL,
    error_detail     VARCHAR(1024) NOT NULL,
    CONSTRAINT delivery_attempts_pk PRIMARY KEY (id),
    CONSTRAINT delivery_attempts_delivery FOREIGN KEY (delivery_id)
        REFERENCES deliveries (id) ON DELETE CASCADE
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt_number);
-- Health and statistics read the attempts of a time window (the last 24 hours) starting from here
-- (since version 3).
CREATE INDEX delivery_attempts_started ON delivery_attempts (started_at);

-- Runs unchanged on PostgreSQL and on H2 in PostgreSQL mode: portable types only.
-- Ids are prefixed, time-sortable strings made by the application (dev.retrysafe.server.db.Ids).

CREATE TABLE accounts (
    id          VARCHAR(40)  NOT NULL PRIMARY KEY,
    name        VARCHAR(200) NOT NULL,
    plan        VARCHAR(20)  NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

-- Only the SHA-256 of a key is stored; a request's key is hashed and looked up.
CREATE TABLE api_keys (
    key_hash    VARCHAR(64) NOT NULL PRIMARY KEY,
    account_id  VARCHAR(40) NOT NULL REFERENCES accounts (id),
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE payments (
    id               VARCHAR(40)   NOT NULL PRIMARY KEY,
    account_id       VARCHAR(40)   NOT NULL REFERENCES accounts (id),
    amount           BIGINT        NOT NULL,
    amount_refunded  BIGINT        NOT NULL DEFAULT 0,
    currency         VARCHAR(3)    NOT NULL,
    status           VARCHAR(20)   NOT NULL,
    description      VARCHAR(1000),
    idempotency_key  VARCHAR(255),
    created_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT payments_amount CHECK (amount > 0),
    CONSTRAINT payments_refunded CHECK (amount_refunded >= 0 AND amount_refunded <= amount)
);
CREATE INDEX payments_account_id ON payments (account_id, id);
-- Not unique: a key is forgotten after its retention (24 h) and may then name a new payment.
-- Exactly-once within the retention comes from the idempotency_keys claim (docs/concurrency.md).
CREATE INDEX payments_idempotency_key ON payments (account_id, idempotency_key);

CREATE TABLE refunds (
    id          VARCHAR(40) NOT NULL PRIMARY KEY,
    account_id  VARCHAR(40) NOT NULL REFERENCES accounts (id),
    payment_id  VARCHAR(40) NOT NULL REFERENCES payments (id),
    amount      BIGINT      NOT NULL,
    status      VARCHAR(20) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT refunds_amount CHECK (amount > 0)
);
CREATE INDEX refunds_account_id ON refunds (account_id, id);

-- The outbox: written in the same transaction as the change it describes.
CREATE TABLE events (
    id          VARCHAR(40) NOT NULL PRIMARY KEY,
    account_id  VARCHAR(40) NOT NULL REFERENCES accounts (id),
    type        VARCHAR(60) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    data        VARCHAR     NOT NULL
);
CREATE INDEX events_account_id ON events (account_id, id);

-- The simulated bank's own idempotency record. It is written outside the request's
-- transaction, as an external bank would, so a rolled-back request still finds its charge.
CREATE TABLE bank_charges (
    charge_key  VARCHAR(80)  NOT NULL PRIMARY KEY,
    account_id  VARCHAR(40)  NOT NULL,
    amount      BIGINT       NOT NULL,
    currency    VARCHAR(3)   NOT NULL,
    outcome     VARCHAR(20)  NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

-- The application's own tables, on H2 (PostgreSQL mode) and PostgreSQL alike.
CREATE TABLE IF NOT EXISTS payments (
    id              VARCHAR(40)  PRIMARY KEY,
    account_id      VARCHAR(64)  NOT NULL,
    amount          BIGINT       NOT NULL,
    currency        VARCHAR(3)   NOT NULL,
    status          VARCHAR(16)  NOT NULL,
    description     VARCHAR(1000),
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    idempotency_key VARCHAR(255)
);
CREATE INDEX IF NOT EXISTS payments_by_account ON payments (account_id, id);

-- the simulated bank's own records, one per charge key
CREATE TABLE IF NOT EXISTS bank_charges (
    charge_key  VARCHAR(80)  PRIMARY KEY,
    account_id  VARCHAR(64)  NOT NULL,
    amount      BIGINT       NOT NULL,
    currency    VARCHAR(3)   NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL
);

-- The job tables: the jobs module's jobs.sql (schema version 2) as it was when the migrations
-- became SQL (2026-12); until then a Java migration ran the module's current script, so a database
-- created by it may have had version 1, which V6 brings to version 2. A migration never changes.
-- Durable asynchronous jobs (Retrysafe jobs module, schema version 2).
-- Runs unchanged on PostgreSQL 15+ and on H2 2.x in MODE=PostgreSQL.
-- Times are epoch milliseconds from the application's clock, never the database's.
--
-- One row per job. status is queued, running, succeeded, failed or canceled. due_at is when the
-- job next needs a worker: for a queued job its place in the queue (its creation time), for a
-- running job the end of its lease (heartbeats move it on, and once it has passed the worker is
-- presumed lost and any instance may take the job over), NULL once the job is finished.
-- lease_token names the current claim: every write of a worker names it, so a worker whose claim
-- was taken over or handed back changes nothing. result_purged says that the purge removed the
-- result bytes, which the job_results table holds.
CREATE TABLE jobs (
    id                  VARCHAR(64)    NOT NULL,
    owner               VARCHAR(64)    NOT NULL,
    kind                VARCHAR(64)    NOT NULL,
    status              VARCHAR(16)    NOT NULL,
    params              VARCHAR(65536) NOT NULL,
    created_at          BIGINT         NOT NULL,
    due_at              BIGINT,
    started_at          BIGINT,
    finished_at         BIGINT,
    progress            INTEGER        NOT NULL,
    attempts            INTEGER        NOT NULL,
    max_attempts        INTEGER        NOT NULL,
    cancel_requested    BOOLEAN        NOT NULL,
    lease_owner         VARCHAR(128),
    lease_token         VARCHAR(64),
    error_type          VARCHAR(64),
    error_title         VARCHAR(256),
    error_detail        VARCHAR(2048),
    result_content_type VARCHAR(256),
    result_size         BIGINT         NOT NULL,
    result_expires_at   BIGINT,
    result_purged       BOOLEAN        NOT NULL,
    CONSTRAINT jobs_pk PRIMARY KEY (id)
);
-- Claims: the queue of a kind in order, its expired leases, the count of its running jobs.
CREATE INDEX jobs_kind_status_due ON jobs (kind, status, due_at);
-- Queue statistics: counts by status and the oldest queued job.
CREATE INDEX jobs_status_created ON jobs (status, created_at);
-- An owner's jobs, newest first (since version 2).
CREATE INDEX jobs_owner_created ON jobs (owner, created_at, id);
-- Purge of old records and of expired results.
CREATE INDEX jobs_finished ON jobs (finished_at);
CREATE INDEX jobs_result_expires ON jobs (result_expires_at);
-- The bytes of each succeeded job's result, apart from the job row so that reading a job never
-- reads its result. expires_at copies jobs.result_expires_at so the purge deletes by an index.
CREATE TABLE job_results (
    job_id     VARCHAR(64) NOT NULL,
    expires_at BIGINT      NOT NULL,
    body       BYTEA       NOT NULL,
    CONSTRAINT job_results_pk PRIMARY KEY (job_id),
    CONSTRAINT job_results_job FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE
);
CREATE INDEX job_results_expires ON job_results (expires_at);
-- One row per kind of job that an instance has a handler for. A claim locks its kind's row
-- (SELECT ... FOR UPDATE) before it counts the kind's running jobs, so the claims of one kind are
-- serialized across all instances and its concurrency limit holds exactly.
CREATE TABLE job_kinds (
    kind VARCHAR(64) NOT NULL,
    CONSTRAINT job_kinds_pk PRIMARY KEY (kind)
);

-- Not the jobs module's: the index that payment reports read an account's payments by creation
-- time with (the Java migration V4 created it after the job tables).
CREATE INDEX payments_account_created ON payments (account_id, created_at);

package dev.retrysafe.jobs.internal;

import dev.retrysafe.leasedwork.internal.LeaseSql;

/**
 * The SQL of the job store. Plain statements that run unchanged on PostgreSQL and H2 2.x and use
 * an index on both. Every write by a worker names its claim's lease token and expects the job to
 * be running, so a worker whose claim was taken over or handed back changes nothing, and a job is
 * finished exactly once (the first conditional update wins; the others match no row).
 */
final class JobSql {

    private JobSql() {}

    /**
     * The leases of {@code jobs}: a claimed job is {@code running}, and its {@code due_at} holds the
     * lease's end, so the job of a lost worker comes due for a takeover by itself.
     */
    static final LeaseSql LEASES = new LeaseSql("jobs", "running", "due_at", false);

    /** The columns {@link JobRows#job} reads. */
    static final String COLUMNS = """
            id, owner, kind, status, params, created_at, started_at, finished_at, progress, attempts,
            max_attempts, cancel_requested, error_type, error_title, error_detail, result_content_type,
            result_size, result_expires_at, result_purged""";

    /** A new queued job; params: id, owner, kind, params, created, due (= created), max attempts. */
    static final String INSERT = """
            INSERT INTO jobs (id, owner, kind, status, params, created_at, due_at, progress, attempts, max_attempts,
                              cancel_requested, result_size, result_purged)
            VALUES (?, ?, ?, 'queued', ?, ?, ?, 0, 0, ?, FALSE, 0, FALSE)""";

    /** One owner's job; params: id, owner. */
    static final String FIND = "SELECT " + COLUMNS + " FROM jobs WHERE id = ? AND owner = ?";

    /** An owner's newest jobs (creation time, then id, both descending); params: owner, limit. */
    static final String LIST_FIRST =
            "SELECT " + COLUMNS + " FROM jobs WHERE owner = ? ORDER BY created_at DESC, id DESC LIMIT ?";

    /**
     * An owner's jobs older than a given one, in the same order; params: owner, its creation
     * time twice, its id, limit.
     */
    static final String LIST_AFTER = "SELECT " + COLUMNS + """
             FROM jobs WHERE owner = ? AND (created_at < ? OR (created_at = ? AND id < ?))
            ORDER BY created_at DESC, id DESC LIMIT ?""";

    /** One owner's job, locked for a cancel; params: id, owner. */
    static final String FIND_FOR_UPDATE = FIND + " FOR UPDATE";

    /** A job by id, to tell the listener its final state; param: id. */
    static final String BY_ID = "SELECT " + COLUMNS + " FROM jobs WHERE id = ?";

    // --- cancel ------------------------------------------------------------------------------

    /** Cancels a queued job at once; params: now, id. */
    static final String CANCEL_QUEUED = """
            UPDATE jobs SET status = 'canceled', cancel_requested = TRUE, finished_at = ?, due_at = NULL
            WHERE id = ? AND status = 'queued'""";

    /** Asks a running job to stop at its next checkpoint; param: id. */
    static final String REQUEST_CANCEL = """
            UPDATE jobs SET cancel_requested = TRUE WHERE id = ? AND status = 'running'""";

    // --- claims ------------------------------------------------------------------------------

    /** Creates the lock row of a kind unless it exists; params: kind, kind. */
    static final String ENSURE_KIND = """
            INSERT INTO job_kinds (kind) SELECT ? WHERE NOT EXISTS (SELECT 1 FROM job_kinds WHERE kind = ?)""";

    /**
     * Locks the kind's row until the claim commits: claims of one kind, by any instance, run one
     * after the other. Param: kind.
     */
    static final String LOCK_KIND = "SELECT kind FROM job_kinds WHERE kind = ? FOR UPDATE";

    /**
     * Jobs of the kind that hold a claim, live or expired: a worker whose lease ran out may still
     * be running until it is taken over, so it keeps its place under the limit. Read under the
     * kind's lock. Param: kind.
     */
    static final String COUNT_RUNNING = "SELECT COUNT(*) FROM jobs WHERE kind = ? AND status = 'running'";

    /** Whether the kind has a queued job (a cheap look before taking the lock); param: kind. */
    static final String ANY_QUEUED = """
            SELECT id FROM jobs WHERE kind = ? AND status = 'queued' ORDER BY due_at LIMIT 1""";

    /** Whether the kind has a running job whose lease ran out; params: kind, now. */
    static final String ANY_EXPIRED = """
            SELECT id FROM jobs WHERE kind = ? AND status = 'running' AND due_at <= ? ORDER BY due_at LIMIT 1""";

    /**
     * Running jobs whose lease ran out and which must end rather than run again: out of attempts
     * (they become failed, worker-lost) or with a cancel requested (they become canceled).
     * Params: kind, now, limit.
     */
    static final String EXHAUSTED = """
            SELECT id, lease_token, attempts, cancel_requested FROM jobs
            WHERE kind = ? AND status = 'running' AND due_at <= ?
              AND (attempts >= max_attempts OR cancel_requested = TRUE)
            ORDER BY due_at, id LIMIT ?""";

    /** Running jobs whose lease ran out and which may run again, oldest first; params: kind, now, limit. */
    static final String EXPIRED = """
            SELECT id, lease_token FROM jobs
            WHERE kind = ? AND status = 'running' AND due_at <= ?
              AND attempts < max_attempts AND cancel_requested = FALSE
            ORDER BY due_at, id LIMIT ?""";

    /** Queued jobs of the kind, first in first out; params: kind, limit. */
    static final String QUEUED = """
            SELECT id FROM jobs WHERE kind = ? AND status = 'queued' ORDER BY due_at, id LIMIT ?""";

    /**
     * Takes over a job whose worker was lost, if its lease is still the expired one read.
     * Params: owner, token, lease end, now, id, old token, now.
     */
    static final String TAKE_OVER = LEASES.takeOver("started_at = ?, attempts = attempts + 1, progress = 0");

    /** Claims a queued job if it is still queued; params: owner, token, lease end, now, id. */
    static final String CLAIM_QUEUED =
            LEASES.claim("started_at = ?, attempts = attempts + 1, progress = 0", "status = 'queued'");

    // --- while running -----------------------------------------------------------------------

    /** Extends a claim's lease (a heartbeat); params: lease end, id, token. */
    static final String EXTEND = LEASES.extend();

    /** The cancel flag of a claim still held; params: id, token. */
    static final String CANCEL_FLAG = """
            SELECT cancel_requested FROM jobs WHERE id = ? AND lease_token = ? AND status = 'running'""";

    /** Raises a claim's progress; params: percent, id, token, percent. */
    static final String PROGRESS = """
            UPDATE jobs SET progress = ? WHERE id = ? AND lease_token = ? AND status = 'running' AND progress < ?""";

    // --- ends --------------------------------------------------------------------------------

    /**
     * Records a success; params: now, content type, size, expiry, id, token. The result's bytes
     * follow with {@link #INSERT_RESULT} in the same transaction.
     */
    static final String SUCCEED = LEASES.endHeld("""
            status = 'succeeded', finished_at = ?, due_at = NULL, progress = 100, result_content_type = ?,
            result_size = ?, result_expires_at = ?""");

    /** The result's bytes; params: job id, expiry, body. */
    static final String INSERT_RESULT = "INSERT INTO job_results (job_id, expires_at, body) VALUES (?, ?, ?)";

    /**
     * Records a failure or a cancel seen by the worker; params: status, now, error type, title,
     * detail, id, token.
     */
    static final String END = LEASES.endHeld("""
            status = ?, finished_at = ?, due_at = NULL, error_type = ?, error_title = ?, error_detail = ?""");

    /**
     * Ends a job whose lease ran out (failed: out of workers; or canceled), if its lease is still
     * the expired one read. Params: status, now, error type, title, detail, id, token, now.
     */
    static final String END_EXPIRED = END + " AND due_at <= ?";

    /** Whether a claim handed back on close must end as canceled; params: id, token. */
    static final String LOCK_CLAIM = """
            SELECT cancel_requested FROM jobs WHERE id = ? AND lease_token = ? AND status = 'running' FOR UPDATE""";

    /**
     * Hands a claim back (closing instance): queued again in its old place, the attempt not
     * counted. Params: id, token.
     */
    static final String RELEASE = LEASES.endHeld("""
            status = 'queued', due_at = created_at, started_at = NULL, progress = 0, attempts = attempts - 1""");

    // --- results, retention, statistics ------------------------------------------------------

    /** A downloadable result's bytes; params: id, owner, now. */
    static final String RESULT_BODY = """
            SELECT r.body FROM job_results r JOIN jobs j ON j.id = r.job_id
            WHERE j.id = ? AND j.owner = ? AND j.status = 'succeeded' AND j.result_purged = FALSE
              AND j.result_expires_at > ?""";

    /** Marks results past retention as purged; param: now. */
    static final String MARK_PURGED = """
            UPDATE jobs SET result_purged = TRUE WHERE result_expires_at <= ? AND result_purged = FALSE""";

    /** Deletes result bytes past retention; param: now. */
    static final String DELETE_RESULTS = "DELETE FROM job_results WHERE expires_at <= ?";

    /**
     * Deletes finished jobs past record retention, never before their result expired (their
     * results go with them); params: record cutoff, now.
     */
    static final String DELETE_RECORDS = """
            DELETE FROM jobs WHERE finished_at <= ? AND (result_expires_at IS NULL OR result_expires_at <= ?)""";

    /** Queued and running counts and the oldest queued job's creation, in one query. */
    static final String STATS = """
            SELECT COALESCE(SUM(CASE WHEN status = 'queued' THEN 1 ELSE 0 END), 0),
                   COALESCE(SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END), 0),
                   MIN(CASE WHEN status = 'queued' THEN created_at END)
            FROM jobs WHERE status IN ('queued', 'running')""";
}

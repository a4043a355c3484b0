package dev.retrysafe.jobs;

import java.util.Locale;

/**
 * Where a job is in its life: {@code QUEUED -> RUNNING -> SUCCEEDED | FAILED | CANCELED}, or
 * {@code QUEUED -> CANCELED}. A running job whose worker is lost runs again (still
 * {@code RUNNING}); one that is handed back by a closing instance is {@code QUEUED} again. The
 * last three states are final.
 */
public enum JobStatus {
    /** Waiting for a worker. */
    QUEUED,
    /** Claimed by a worker whose handler runs. */
    RUNNING,
    /** The handler returned a result, which is stored. */
    SUCCEEDED,
    /** The handler failed, or its workers were lost too often; {@link Job#error()} says why. */
    FAILED,
    /** Canceled while queued, or stopped at a checkpoint after a cancel was requested. */
    CANCELED;

    /** The name in APIs and in the database: {@code queued}, {@code running}, ... */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the state is final: succeeded, failed or canceled. */
    public boolean finished() {
        return this == SUCCEEDED || this == FAILED || this == CANCELED;
    }

    /**
     * The status named {@code wireName}.
     *
     * @throws IllegalArgumentException if no status has that name
     */
    public static JobStatus fromWireName(String wireName) {
        for (JobStatus status : values()) {
            if (status.wireName().equals(wireName)) {
                return status;
            }
        }
        throw new IllegalArgumentException("unknown job status '" + wireName + "'");
    }
}

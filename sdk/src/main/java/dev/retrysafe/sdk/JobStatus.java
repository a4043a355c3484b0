package dev.retrysafe.sdk;

import java.util.Locale;

/** The states of an asynchronous job, in the order a job goes through them. */
public enum JobStatus {
    /** Waiting for a worker. */
    QUEUED,
    /** A worker is on it. */
    RUNNING,
    /** Done; its result can be downloaded. */
    SUCCEEDED,
    /** Ended with an error (see {@link Job#error()}). */
    FAILED,
    /** Canceled before it finished. */
    CANCELED;

    /** Whether the job will not change any more. */
    public boolean finished() {
        return this == SUCCEEDED || this == FAILED || this == CANCELED;
    }

    /** The name on the wire, such as {@code succeeded}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The status named {@code wireName}.
     *
     * @throws IllegalArgumentException for a name the API does not use
     */
    public static JobStatus fromWireName(String wireName) {
        for (JobStatus s : values()) {
            if (s.wireName().equals(wireName)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown job status '" + wireName + "'");
    }
}

package dev.retrysafe.jobs;

import dev.retrysafe.leasedwork.internal.Checks;

/**
 * A job to enqueue.
 *
 * @param owner  the tenant (account) the job belongs to, 1 to 64 characters; every lookup is
 *               scoped to it, so another owner cannot see or cancel the job
 * @param kind   which handler runs it, 1 to 64 characters of {@code [a-z0-9_.-]}
 * @param params the handler's input, opaque text (JSON, say) of at most 64 KiB in UTF-8
 */
public record NewJob(String owner, String kind, String params) {

    /** Largest {@code params} in UTF-8 bytes. */
    public static final int MAX_PARAMS_BYTES = 64 * 1024;

    /** Checks every value; messages name the parameter and the bad value. */
    public NewJob {
        Checks.text("owner", owner, 1, 64);
        if (owner.isBlank()) {
            throw new IllegalArgumentException("owner must not be blank");
        }
        Checks.slug("kind", kind);
        Checks.utf8("params", params, MAX_PARAMS_BYTES);
    }
}

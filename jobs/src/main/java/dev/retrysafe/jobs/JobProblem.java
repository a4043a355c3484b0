package dev.retrysafe.jobs;

import dev.retrysafe.leasedwork.internal.Checks;

/**
 * Why a job failed, in the shape of an RFC 9457 problem without its URI: the server maps the
 * type to a problem page. The module itself uses {@value #WORKER_LOST} and {@value #JOB_ERROR};
 * a handler chooses its own types through {@link JobFailedException}. Stored as given, so a
 * detail must hold nothing secret.
 *
 * @param type   a short slug, 1 to 64 characters of {@code [a-z0-9_.-]}
 * @param title  a short summary for humans, 1 to 256 characters
 * @param detail this occurrence's explanation, up to 2048 characters (may be empty)
 */
public record JobProblem(String type, String title, String detail) {

    /** Type of a job whose workers were all lost (crashed, hung, cut off) up to the retry bound. */
    public static final String WORKER_LOST = "worker-lost";
    /** Type of a job whose handler threw an unexpected exception. */
    public static final String JOB_ERROR = "job-error";

    /** Checks every value; messages name the parameter. */
    public JobProblem {
        Checks.slug("type", type);
        Checks.text("title", title, 1, 256);
        Checks.text("detail", detail, 0, 2048);
    }
}

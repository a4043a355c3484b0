package dev.retrysafe.sdk;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * The {@code 202 Accepted} answer to work that runs in the background: the job as it was
 * accepted, where to follow it, and how soon to look. Immutable and threadsafe.
 *
 * @param job the job when it was accepted
 * @param location its absolute URI, from the {@code Location} header
 * @param retryAfter how long to wait before the first look, from {@code Retry-After} (1 s when absent)
 */
public record AcceptedJob(Job job, URI location, Duration retryAfter) {

    /** Checks the values. */
    public AcceptedJob {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(retryAfter, "retryAfter");
    }
}

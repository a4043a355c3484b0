package dev.retrysafe.jobs;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The queue as stored, over all instances and owners, read in one query.
 *
 * @param queued          jobs waiting for a worker
 * @param running         jobs claimed by a worker (including those whose worker was lost and
 *                        which wait to be taken over)
 * @param oldestQueuedAge how long the oldest queued job has existed, or {@code null} if none waits
 */
public record JobStats(long queued, long running, @Nullable Duration oldestQueuedAge) {

    /** Checks the counts. */
    public JobStats {
        if (queued < 0 || running < 0) {
            throw new IllegalArgumentException("counts must not be negative, were " + queued + " and " + running);
        }
    }
}

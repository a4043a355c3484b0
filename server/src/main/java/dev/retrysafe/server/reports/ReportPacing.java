package dev.retrysafe.server.reports;

import dev.retrysafe.jobs.JobContext;
import java.time.Duration;

/**
 * How a report spends the time it is stretched to after its rows are written
 * ({@code jobs.report_min_duration}, for demos and tests). Production uses {@link #SLEEP}; a test
 * may hold a report until it releases it, to reach "running, not at a checkpoint" deterministically
 * (as {@code Bank.Processing} does for charges). Implementations must be threadsafe.
 */
@FunctionalInterface
public interface ReportPacing {

    /**
     * Sleeps out the rest of the least duration in steps of at most 50 ms, storing progress by
     * time and checking for cancellation at every step, then checks once more.
     */
    ReportPacing SLEEP = PaymentsCsv::stretch;

    /**
     * Spends what is left of {@code leastDuration} for the running report.
     *
     * @param context       the report's job, for progress and checkpoints
     * @param leastDuration the least time the report takes (zero: none)
     * @param startedNanos  {@link dev.retrysafe.common.MonotonicClock#nanoTime()} when the report started
     * @throws InterruptedException if interrupted while waiting
     */
    void pace(JobContext context, Duration leastDuration, long startedNanos) throws InterruptedException;
}

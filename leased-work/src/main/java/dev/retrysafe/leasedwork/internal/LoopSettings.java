package dev.retrysafe.leasedwork.internal;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;

/**
 * How a {@link WorkLoop} runs. Immutable.
 *
 * @param name            names the loop in messages, such as {@code dispatcher instance-1}
 * @param log             where the loop logs (the owning module's logger)
 * @param workers         most units of work under way at once
 * @param batchSize       most units one claim takes
 * @param rhythm          when the loop claims again
 * @param pollInterval    the wait between claims when nothing wakes the loop
 * @param shutdownTimeout how long {@code close()} lets work under way finish
 * @param loopThreads     makes the claim loop's thread and those of {@code upkeep}
 * @param workerThreads   makes one thread per unit of work
 * @param upkeep          periodic tasks (heartbeats, purges) that stop after the workers
 * @param claimGap        {@link WorkLoop.Rhythm#BATCHES} only: the least time from one claim to
 *                        the next one that a wake-up or a worker's end brings (zero: none). Under
 *                        a stream of commits every wake-up would otherwise cost a claim that takes
 *                        one or two units; waiting this long lets one claim take what came meanwhile.
 *                        A claim whose batch was full is followed at once, gap or not.
 */
public record LoopSettings(
        String name,
        System.Logger log,
        int workers,
        int batchSize,
        WorkLoop.Rhythm rhythm,
        Duration pollInterval,
        Duration shutdownTimeout,
        ThreadFactory loopThreads,
        ThreadFactory workerThreads,
        List<Upkeep> upkeep,
        Duration claimGap) {

    /** Settings without a claim gap. */
    public LoopSettings(
            String name,
            System.Logger log,
            int workers,
            int batchSize,
            WorkLoop.Rhythm rhythm,
            Duration pollInterval,
            Duration shutdownTimeout,
            ThreadFactory loopThreads,
            ThreadFactory workerThreads,
            List<Upkeep> upkeep) {
        this(
                name,
                log,
                workers,
                batchSize,
                rhythm,
                pollInterval,
                shutdownTimeout,
                loopThreads,
                workerThreads,
                upkeep,
                Duration.ZERO);
    }

    /**
     * A periodic task of the loop.
     *
     * @param what       names it in messages, such as {@code heartbeat}
     * @param interval   the wait between two runs
     * @param runAtStart whether it runs once at start, before the first wait
     * @param task       the task; what it throws is logged and it runs again after the interval
     */
    public record Upkeep(String what, Duration interval, boolean runAtStart, Runnable task) {
        /** Checks the values. */
        public Upkeep {
            Objects.requireNonNull(what, "what");
            Objects.requireNonNull(task, "task");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("interval must be positive, was " + interval);
            }
        }
    }

    /** Checks the values. */
    public LoopSettings {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(log, "log");
        Checks.range("workers", workers, 1, Integer.MAX_VALUE);
        Checks.range("batchSize", batchSize, 1, Integer.MAX_VALUE);
        Objects.requireNonNull(rhythm, "rhythm");
        Objects.requireNonNull(pollInterval, "pollInterval");
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        Objects.requireNonNull(loopThreads, "loopThreads");
        Objects.requireNonNull(workerThreads, "workerThreads");
        upkeep = List.copyOf(upkeep);
        Objects.requireNonNull(claimGap, "claimGap");
        if (claimGap.isNegative()) {
            throw new IllegalArgumentException("claimGap must not be negative, was " + claimGap);
        }
    }
}

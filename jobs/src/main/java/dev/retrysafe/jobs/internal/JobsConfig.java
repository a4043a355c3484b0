package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.JobHandler;
import dev.retrysafe.jobs.JobListener;
import dev.retrysafe.jobs.JobObserver;
import dev.retrysafe.leasedwork.internal.Checks;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;

/**
 * The settings of one {@code Jobs} instance, checked once. Immutable (its collaborators are
 * threadsafe).
 *
 * @param dataSource      the database
 * @param clock           wall clock for every stored time
 * @param instanceId      names this instance's claims
 * @param lease           how long a claim lasts without a heartbeat
 * @param maxAttempts     claims of a job (stored with it when enqueued here) before losing its
 *                        worker once more fails it
 * @param resultRetention how long a result can be downloaded after the job finished
 * @param recordRetention how long a finished job's record is kept (never less than its result)
 * @param workers         most jobs this instance runs at once
 * @param pollInterval    the wait between claims when nothing wakes the loop
 * @param shutdownTimeout how long {@code close()} lets running jobs finish
 * @param purgeInterval   the wait between two purges of the background loop
 * @param handlers        the handlers by kind
 * @param listener        told of every job that reaches a final state
 * @param observer        told of changes after they committed
 * @param threadFactory   makes the loop, heartbeat, purge and worker threads
 */
public record JobsConfig(
        DataSource dataSource,
        Clock clock,
        String instanceId,
        Duration lease,
        int maxAttempts,
        Duration resultRetention,
        Duration recordRetention,
        int workers,
        Duration pollInterval,
        Duration shutdownTimeout,
        Duration purgeInterval,
        Map<String, Registration> handlers,
        JobListener listener,
        JobObserver observer,
        ThreadFactory threadFactory) {

    /** Shortest and longest lease. */
    public static final Duration MIN_LEASE = Duration.ofSeconds(1);
    /** Longest lease. */
    public static final Duration MAX_LEASE = Duration.ofHours(1);
    /** Longest retention of results and records. */
    public static final Duration MAX_RETENTION = Duration.ofDays(3650);
    /** Most claims of one job. */
    public static final int MAX_ATTEMPTS = 100;
    /** Most workers of one instance. */
    public static final int MAX_WORKERS = 10_000;

    /** A handler and the most jobs of its kind that may run at once across all instances. */
    public record Registration(JobHandler handler, int maxConcurrency) {
        /** Checks the values. */
        public Registration {
            Objects.requireNonNull(handler, "handler");
            Checks.range("maxConcurrency", maxConcurrency, 1, MAX_WORKERS);
        }
    }

    /** Checks every value; messages name the parameter and the bad value. */
    public JobsConfig {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(clock, "clock");
        Checks.text("instanceId", instanceId, 1, 128);
        Checks.range("lease", lease, MIN_LEASE, MAX_LEASE);
        Checks.range("maxAttempts", maxAttempts, 1, MAX_ATTEMPTS);
        Checks.range("resultRetention", resultRetention, Duration.ofSeconds(1), MAX_RETENTION);
        Checks.range("recordRetention", recordRetention, Duration.ofSeconds(1), MAX_RETENTION);
        Checks.range("workers", workers, 1, MAX_WORKERS);
        Checks.range("pollInterval", pollInterval, Duration.ofMillis(1), Duration.ofMinutes(10));
        Checks.range("shutdownTimeout", shutdownTimeout, Duration.ZERO, Duration.ofHours(1));
        Checks.range("purgeInterval", purgeInterval, Duration.ofSeconds(1), Duration.ofDays(1));
        handlers.keySet().forEach(kind -> Checks.slug("kind", kind));
        handlers = Map.copyOf(new TreeMap<>(handlers));
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(observer, "observer");
        Objects.requireNonNull(threadFactory, "threadFactory");
    }
}

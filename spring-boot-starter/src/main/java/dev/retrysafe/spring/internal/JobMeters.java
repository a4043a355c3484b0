package dev.retrysafe.spring.internal;

import dev.retrysafe.jobs.JobMetrics;
import dev.retrysafe.jobs.JobStats;
import dev.retrysafe.jobs.Jobs;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.function.ToLongFunction;

/**
 * The job figures as Micrometer meters whose Prometheus names are those of the Retrysafe server's
 * {@code /metrics}: {@code retrysafe_jobs_queued}, {@code retrysafe_jobs_running},
 * {@code retrysafe_jobs_oldest_queued_age_seconds} (all instances, one database query per
 * scrape), {@code retrysafe_jobs_finished_total{status}} and {@code retrysafe_jobs_lease_expired_total}
 * (this instance, from the jobs module's own {@link JobMetrics}). Threadsafe.
 */
public final class JobMeters implements MeterBinder {

    private static final Duration STATS_TTL = Duration.ofSeconds(1);

    private final Jobs jobs;

    /** The meters of {@code jobs}. */
    public JobMeters(Jobs jobs) {
        this.jobs = jobs;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Memo<JobStats> stats = new Memo<>(jobs::stats, STATS_TTL);
        Gauge.builder("retrysafe.jobs.queued", stats, s -> s.get().queued())
                .description("Jobs waiting for a worker, across all instances.")
                .strongReference(true)
                .register(registry);
        Gauge.builder("retrysafe.jobs.running", stats, s -> s.get().running())
                .description("Jobs being run, across all instances.")
                .strongReference(true)
                .register(registry);
        Gauge.builder("retrysafe.jobs.oldest.queued.age", stats, s -> {
                    Duration age = s.get().oldestQueuedAge();
                    return age == null ? 0 : age.toNanos() / 1e9;
                })
                .description("How long the oldest queued job has waited (0 when none waits).")
                .baseUnit("seconds")
                .strongReference(true)
                .register(registry);
        JobMetrics metrics = jobs.metrics();
        finished(registry, metrics, "succeeded", JobMetrics::succeeded);
        finished(registry, metrics, "failed", JobMetrics::failed);
        finished(registry, metrics, "canceled", JobMetrics::canceled);
        FunctionCounter.builder("retrysafe.jobs.lease.expired", metrics, JobMetrics::leaseExpiredRetries)
                .description("Jobs this instance took over after another worker's lease ran out.")
                .register(registry);
    }

    private static void finished(
            MeterRegistry registry, JobMetrics metrics, String status, ToLongFunction<JobMetrics> count) {
        FunctionCounter.builder("retrysafe.jobs.finished", metrics, m -> count.applyAsLong(m))
                .description("Jobs this instance finished, by final status.")
                .tag("status", status)
                .register(registry);
    }
}

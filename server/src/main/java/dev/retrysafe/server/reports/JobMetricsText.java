package dev.retrysafe.server.reports;

import dev.retrysafe.jobs.JobMetrics;
import dev.retrysafe.jobs.JobStats;
import dev.retrysafe.jobs.Jobs;
import dev.retrysafe.server.http.PrometheusText;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The job figures of {@code GET /metrics} in the Prometheus text format: queue depth, running
 * jobs and the age of the oldest queued job (all instances, from the database), and this
 * instance's outcomes since it started. Threadsafe.
 */
public final class JobMetricsText implements Supplier<String> {

    private final Jobs jobs;

    /** The figures of {@code jobs}. */
    public JobMetricsText(Jobs jobs) {
        this.jobs = jobs;
    }

    @Override
    public String get() {
        return render(jobs.stats(), jobs.metrics());
    }

    static String render(JobStats stats, JobMetrics metrics) {
        Duration age = stats.oldestQueuedAge();
        return new PrometheusText()
                .family("retrysafe_jobs_queued", "gauge", "Jobs waiting for a worker, across all instances.")
                .sample("retrysafe_jobs_queued", stats.queued())
                .family("retrysafe_jobs_running", "gauge", "Jobs being run, across all instances.")
                .sample("retrysafe_jobs_running", stats.running())
                .family(
                        "retrysafe_jobs_oldest_queued_age_seconds",
                        "gauge",
                        "How long the oldest queued job has waited (0 when none waits).")
                .sample(
                        "retrysafe_jobs_oldest_queued_age_seconds",
                        PrometheusText.seconds(age == null ? Duration.ZERO : age))
                .family("retrysafe_jobs_finished_total", "counter", "Jobs this instance finished, by final status.")
                .sample("retrysafe_jobs_finished_total{status=\"succeeded\"}", metrics.succeeded())
                .sample("retrysafe_jobs_finished_total{status=\"failed\"}", metrics.failed())
                .sample("retrysafe_jobs_finished_total{status=\"canceled\"}", metrics.canceled())
                .family(
                        "retrysafe_jobs_lease_expired_total",
                        "counter",
                        "Jobs this instance took over after another worker's lease ran out.")
                .sample("retrysafe_jobs_lease_expired_total", metrics.leaseExpiredRetries())
                .toString();
    }
}

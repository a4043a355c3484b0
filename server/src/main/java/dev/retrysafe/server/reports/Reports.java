package dev.retrysafe.server.reports;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.jobs.Jobs;
import dev.retrysafe.liveevents.StreamSignals;
import dev.retrysafe.server.config.JobsConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.events.EventLog;
import dev.retrysafe.server.events.EventTypes;
import dev.retrysafe.server.streams.EventStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Reports as the server runs them: the job workers of this instance (started here, closed with
 * the server: running reports finish within the shutdown timeout, the others are handed back for
 * another instance), the {@code payments_csv} handler, and the events of finished reports.
 * Threadsafe.
 */
public final class Reports {

    /** A finished report whose result can be downloaded. */
    static final String REPORT_SUCCEEDED = EventTypes.REPORT_SUCCEEDED;
    /** A report that failed (its {@code error} says why). */
    static final String REPORT_FAILED = EventTypes.REPORT_FAILED;

    private static final Duration MAX_SHUTDOWN = Duration.ofHours(1);

    private final Jobs jobs;
    private final Transactions transactions;
    private final Clock clock;

    private Reports(Jobs jobs, Transactions transactions, Clock clock) {
        this.jobs = jobs;
        this.transactions = transactions;
        this.clock = clock;
    }

    /**
     * Starts the workers over {@code dataSource}; they join {@code resources}, closed last first,
     * so they stop before the pools opened earlier. Every job change, once committed, is told to
     * {@code streams}. Reports spend their least duration through {@code pacing}.
     */
    public static Reports start(
            ServerConfig config,
            DataSource dataSource,
            Ids ids,
            Clock clock,
            List<AutoCloseable> resources,
            StreamSignals streams,
            ReportPacing pacing) {
        JobsConfig settings = config.jobs();
        EventLog events = new EventLog(ids);
        Duration shutdown =
                config.shutdownTimeout().compareTo(MAX_SHUTDOWN) > 0 ? MAX_SHUTDOWN : config.shutdownTimeout();
        Jobs jobs = Jobs.builder(dataSource)
                .clock(clock)
                .lease(settings.lease())
                .maxAttempts(settings.maxAttempts())
                .resultRetention(settings.resultRetention())
                .workers(settings.workers())
                .shutdownTimeout(shutdown)
                // reports read the whole range of an account's payments: at most as many at once,
                // across every instance, as one instance has workers, so reports cannot starve the API
                .handler(
                        ReportRequest.PAYMENTS_CSV,
                        new PaymentsCsv(dataSource, settings.reportMinDuration(), pacing),
                        settings.workers())
                .listener((transaction, job) -> announce(events, transaction, job))
                // after the commit: a finished report's event is in the same transaction
                .observer(job -> streams.update(job.owner(), EventStream.JOB_UPDATED, Map.of("job", JobJson.of(job))))
                .build();
        resources.add(jobs);
        jobs.start();
        return new Reports(jobs, new Transactions(dataSource), clock);
    }

    /** Appends {@code report.succeeded} or {@code report.failed} in the transaction that finished the job. */
    private static void announce(EventLog events, Connection transaction, Job job) throws SQLException {
        if (job.status() == JobStatus.SUCCEEDED || job.status() == JobStatus.FAILED) {
            String type = job.status() == JobStatus.SUCCEEDED ? REPORT_SUCCEEDED : REPORT_FAILED;
            events.append(
                    transaction,
                    job.owner(),
                    type,
                    job.finishedAt() == null ? job.createdAt() : job.finishedAt(),
                    JobJson.of(job));
        }
    }

    /** The workers (to wake them after a commit, and for metrics). */
    public Jobs jobs() {
        return jobs;
    }

    /** The handlers of the report and job API. */
    public JobRoutes routes(int maxBodyBytes) {
        return new JobRoutes(jobs, transactions, clock, maxBodyBytes);
    }
}

package dev.retrysafe.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two instances on one database with the real clock and their background threads: every job runs
 * exactly once, and no kind ever runs more jobs at once than its limit, although each instance
 * alone has more workers than either limit. Handlers take a few milliseconds so that runs overlap;
 * concurrency is measured inside the handlers, where it matters.
 */
abstract class TwoInstancesContract {

    static final int JOBS = 500;
    static final Map<String, Integer> LIMITS = Map.of("alpha", 2, "beta", 3);
    static final Duration DEADLINE = Duration.ofSeconds(90);

    /** A new, empty database of this test class's own. */
    protected abstract ThrowawayDatabase openDatabase();

    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> concurrent = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> highWater = new ConcurrentHashMap<>();
    private final Queue<Throwable> handlerErrors = new ConcurrentLinkedQueue<>();

    @Test
    void everyJobRunsExactlyOnceAndKindLimitsHoldAcrossInstances() throws Exception {
        LIMITS.keySet().forEach(kind -> {
            concurrent.put(kind, new AtomicInteger());
            highWater.put(kind, new AtomicInteger());
        });
        try (ThrowawayDatabase database = openDatabase()) {
            PooledDataSource dataSource = new PooledDataSource(database.dataSource(), 20);
            try (Connection c = dataSource.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(JobSchema.schemaSql());
            }
            RecordingThreads threads = new RecordingThreads();
            Jobs first = instance(dataSource, "first", threads);
            Jobs second = instance(dataSource, "second", threads);
            try (first;
                    second) {
                first.start();
                second.start();
                for (int i = 0; i < JOBS; i++) {
                    Jobs via = i % 2 == 0 ? first : second;
                    via.enqueue(new NewJob("acct_" + (i % 7), i % 2 == 0 ? "alpha" : "beta", "{\"n\":" + i + "}"));
                }

                await().atMost(DEADLINE)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> finished(dataSource) == JOBS || !handlerErrors.isEmpty());
            }

            assertThat(handlerErrors).isEmpty();
            assertThat(count(dataSource, "SELECT COUNT(*) FROM jobs WHERE status = 'succeeded' AND attempts = 1"))
                    .isEqualTo(JOBS);
            assertThat(executions).hasSize(JOBS);
            assertThat(executions.values()).allMatch(runs -> runs.get() == 1, "ran exactly once");
            LIMITS.forEach((kind, limit) -> assertThat(highWater.get(kind).get())
                    .as("most %s jobs running at once", kind)
                    .isEqualTo(limit));
            assertThat(first.metrics().succeeded() + second.metrics().succeeded())
                    .isEqualTo(JOBS);
            assertThat(first.metrics().succeeded()).as("first did some").isPositive();
            assertThat(second.metrics().succeeded()).as("second did some").isPositive();
            assertThat(first.metrics().leaseExpiredRetries() + second.metrics().leaseExpiredRetries())
                    .isZero();
            threads.assertAllEnded();
            assertThat(dataSource.borrowed()).isZero();
            dataSource.close();
        }
    }

    private Jobs instance(PooledDataSource dataSource, String id, RecordingThreads threads) {
        Jobs.Builder builder = Jobs.builder(dataSource)
                .clock(Clock.systemUTC())
                .instanceId(id)
                .workers(4)
                .pollInterval(Duration.ofMillis(10))
                .threadFactory(threads);
        LIMITS.forEach((kind, limit) -> builder.handler(kind, context -> run(kind, context), limit));
        return builder.build();
    }

    private JobOutput run(String kind, JobContext context) throws InterruptedException {
        int now = concurrent.get(kind).incrementAndGet();
        try {
            highWater.get(kind).accumulateAndGet(now, Math::max);
            executions
                    .computeIfAbsent(context.job().id(), id -> new AtomicInteger())
                    .incrementAndGet();
            if (!context.job().kind().equals(kind)) {
                handlerErrors.add(
                        new AssertionError("job " + context.job().id() + " reached the " + kind + " handler"));
            }
            Thread.sleep(3); // the work itself: long enough for runs to overlap
            context.checkpoint();
            return JobOutput.of("text/plain", context.job().id().getBytes(UTF_8));
        } catch (RuntimeException | InterruptedException e) {
            handlerErrors.add(e);
            throw e;
        } finally {
            concurrent.get(kind).decrementAndGet();
        }
    }

    private static long finished(PooledDataSource dataSource) throws SQLException {
        return count(dataSource, "SELECT COUNT(*) FROM jobs WHERE status IN ('succeeded', 'failed', 'canceled')");
    }

    private static long count(PooledDataSource dataSource, String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }
}

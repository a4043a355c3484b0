package dev.retrysafe.bench.delivery;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.DeliveryMetrics;
import dev.retrysafe.delivery.Dispatcher;
import dev.retrysafe.delivery.HttpAttemptSender;
import dev.retrysafe.delivery.Outbox;
import dev.retrysafe.delivery.OutboxEvent;
import dev.retrysafe.delivery.TargetGuard;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * One instance of the delivery side of a Retrysafe server, without the HTTP API: a
 * {@link Dispatcher} configured as the server configures it ({@link HttpAttemptSender} behind the
 * SSRF guard with {@code 127.0.0.0/8} allowlisted and plain {@code http} allowed, 5 s timeout,
 * 30 s lease, at most 10 attempts in flight per endpoint, 100 ms poll), and producers that
 * commit {@code payment.succeeded} events into the outbox, one event per transaction as a
 * payment does, waking this instance's dispatcher after each commit as the server does. Several
 * instances share one PostgreSQL database. Each event's commit time is logged for the analysis.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.retrysafe.bench.delivery.Instance --db URL --user postgres \
 *     --id a --mode rate|saturate --rate EVENTS_PER_S --backlog N --start-at EPOCH_MS --stop-at EPOCH_MS \
 *     --endpoints 16 --producers 16 --pool 10 --out commits-a.txt
 * </pre>
 *
 * {@code rate}: events committed on an open-loop schedule of {@code --rate} per second (this
 * instance's share). {@code saturate}: producers keep about {@code --backlog} unfinished
 * deliveries in the database (all instances together), so the dispatchers always have work. Each
 * of the two instances keeps its own estimate (events it committed minus deliveries its dispatcher
 * finished) at half of that, without asking the database: the two estimates add up to the true
 * backlog, and the benchmark's own queries do not load the PostgreSQL it measures.
 * {@code none}: no producer (to drain deliveries made otherwise); {@code --dispatch false}
 * runs no dispatcher (to measure the producers alone).
 */
public final class Instance {

    private final DataSource db;
    private final Dispatcher dispatcher;
    private final String id;
    private final int endpoints;
    private final Outbox outbox = Outbox.create();
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentLinkedQueue<long[]> commitTimes = new ConcurrentLinkedQueue<>();
    private final AtomicLong producerLagMax = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong committed = new AtomicLong();

    private Instance(DataSource db, Dispatcher dispatcher, String id, int endpoints) {
        this.db = db;
        this.dispatcher = dispatcher;
        this.id = id;
        this.endpoints = endpoints;
    }

    /** Runs one instance until {@code --stop-at}, then until the backlog is delivered (bounded). */
    public static void main(String[] args) throws Exception {
        Options o = new Options(args);
        String id = o.string("id");
        String mode = o.string("mode");
        long startAt = o.longValue("start-at");
        long stopAt = o.longValue("stop-at");
        int producers = o.integer("producers", 16);
        Path out = Path.of(o.string("out"));
        try (HikariDataSource db = pool(o.string("db"), o.string("user", "postgres"), o.integer("pool", 10));
                HttpAttemptSender sender = HttpAttemptSender.builder()
                        .guard(TargetGuard.builder()
                                .allowPrivateTargets(List.of("127.0.0.0/8"))
                                .requireHttps(false)
                                .build())
                        .timeout(Duration.ofSeconds(5))
                        .build()) {
            Dispatcher dispatcher = Dispatcher.builder(db, sender)
                    .instanceId("bench-" + id)
                    .lease(Duration.ofSeconds(30))
                    .maxInFlightPerEndpoint(o.integer("max-in-flight", 10))
                    .shutdownTimeout(Duration.ofSeconds(10))
                    .build();
            Instance instance = new Instance(db, dispatcher, id, o.integer("endpoints", 16));
            System.out.println("instance " + id + " ready");
            waitUntil(startAt); // every instance starts sending at the same moment (draining a backlog)
            long cpuAtStart = processCpuNanos();
            if (!o.string("dispatch", "true").equals("false")) {
                dispatcher.start();
            }
            List<Thread> threads = new ArrayList<>();
            if (mode.equals("rate")) {
                double rate = o.decimal("rate", 100);
                for (int i = 0; i < producers; i++) {
                    threads.add(Thread.ofVirtual().start(() -> instance.produceAtRate(rate, startAt, stopAt)));
                }
            } else if (mode.equals("saturate")) {
                long target = o.integer("backlog", 2000);
                for (int i = 0; i < producers; i++) {
                    threads.add(Thread.ofVirtual().start(() -> instance.produceToBacklog(target / 2, startAt, stopAt)));
                }
            } else if (!mode.equals("none")) {
                throw new IllegalArgumentException("--mode must be rate, saturate or none, was " + mode);
            }
            for (Thread t : threads) {
                t.join();
            }
            long drainUntil = Math.max(stopAt, System.currentTimeMillis()) + o.integer("drain-ms", 20_000);
            waitUntil(startAt);
            while (instance.anyUnfinished() && System.currentTimeMillis() < drainUntil) {
                Thread.sleep(500);
            }
            dispatcher.close();
            long cpuMillis = (processCpuNanos() - cpuAtStart) / 1_000_000;
            instance.writeCommits(out);
            instance.report(dispatcher.metrics(), cpuMillis);
        }
    }

    static HikariDataSource pool(String url, String user, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setPoolName("bench");
        return new HikariDataSource(config);
    }

    static String account(int n) {
        return "acct_bench_" + n;
    }

    /** Open loop: event {@code i} (of this instance) is due at {@code startAt + i / rate}. */
    private void produceAtRate(double rate, long startAt, long stopAt) {
        long startMicros = startAt * 1_000L;
        while (true) {
            long i = sequence.getAndIncrement();
            long dueMicros = startMicros + (long) (i * 1_000_000.0 / rate);
            if (dueMicros >= stopAt * 1_000L) {
                return;
            }
            long wait = dueMicros - nowMicros();
            if (wait > 0) {
                LockSupport.parkNanos(wait * 1_000L);
            }
            long lag = nowMicros() - dueMicros;
            producerLagMax.accumulateAndGet(lag, Math::max);
            commitOne(i);
        }
    }

    /**
     * Closed loop: keeps this instance's estimate of the unfinished deliveries (its commits minus
     * its dispatcher's finished deliveries) at about {@code share}. Producers may overshoot it by
     * their number (each checks, then commits).
     */
    private void produceToBacklog(long share, long startAt, long stopAt) {
        waitUntil(startAt);
        while (System.currentTimeMillis() < stopAt) {
            DeliveryMetrics m = dispatcher.metrics();
            if (committed.get() - m.deliveriesSucceeded() - m.deliveriesFailed() >= share) {
                LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
                continue;
            }
            commitOne(sequence.getAndIncrement());
        }
    }

    /**
     * Whether any delivery is unfinished (pending or being attempted), all instances. Stops at the
     * first one: a COUNT of every unfinished row, as this was, took PostgreSQL 410 ms per call with
     * 200,000 in the drain (pg_stat_statements), and the benchmark's own polling must not be what
     * limits the dispatchers.
     */
    private boolean anyUnfinished() {
        try (Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT 1 FROM deliveries WHERE next_attempt_at IS NOT NULL LIMIT 1")) {
            return r.next();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void commitOne(long i) {
        String eventId = "evt_" + id + "_" + i;
        Instant now = Instant.now();
        OutboxEvent event = new OutboxEvent(
                eventId, account((int) (i % endpoints)), "payment.succeeded", now, payload(eventId, now));
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            try {
                outbox.append(c, event);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException | RuntimeException e) {
            errors.incrementAndGet();
            return;
        }
        commitTimes.add(new long[] {i, nowMicros()});
        committed.incrementAndGet();
        dispatcher.wakeUp();
    }

    /** A {@code payment.succeeded} event shaped like the server's (about 330 bytes). */
    static byte[] payload(String eventId, Instant at) {
        String time = at.toString();
        return ("{\"id\":\"" + eventId + "\",\"type\":\"payment.succeeded\",\"timestamp\":\"" + time + "\","
                        + "\"data\":{\"id\":\"pay_01kbfz3x8m2c7v9q4w6e1r5t0y\",\"object\":\"payment\",\"amount\":500,"
                        + "\"amount_refunded\":0,\"currency\":\"eur\",\"status\":\"succeeded\",\"description\":\"bench\","
                        + "\"created_at\":\"" + time + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private void writeCommits(Path out) throws Exception {
        try (BufferedWriter w = Files.newBufferedWriter(out)) {
            for (long[] c : commitTimes) {
                w.write("evt_" + id + "_" + c[0] + " " + c[1]);
                w.newLine();
            }
        }
    }

    private void report(DeliveryMetrics m, long cpuMillis) {
        StringBuilder outcomes = new StringBuilder();
        for (Outcome outcome : Outcome.values()) {
            if (m.attempts(outcome) > 0) {
                outcomes.append(' ')
                        .append(outcome.name().toLowerCase(Locale.ROOT))
                        .append('=')
                        .append(m.attempts(outcome));
            }
        }
        System.out.println("INSTANCE id=" + id + " committed=" + commitTimes.size() + " producer_errors=" + errors.get()
                + " producer_lag_max_ms=" + producerLagMax.get() / 1000 + " attempts=" + m.attemptsTotal()
                + " succeeded=" + m.deliveriesSucceeded() + " failed=" + m.deliveriesFailed() + outcomes
                + " dispatcher_first_attempt_mean_ms="
                + m.firstAttemptLatency().mean().toMillis()
                + " cpu_ms_since_start=" + cpuMillis);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static void waitUntil(long epochMillis) {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            LockSupport.parkNanos(wait * 1_000_000L);
        }
    }

    private static long nowMicros() {
        return Receiver.epochMicros(Instant.now());
    }
}

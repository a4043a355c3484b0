package dev.retrysafe.acceptance;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The faults of the suite, injected one at a time into a running {@link FaultCluster}, each
 * followed by a measured recovery: the time from the moment the fault is lifted (the instance
 * started again, the database or Redis started again, the paused instance continued, the lock
 * released) until the cluster serves normally again, judged by requests of its own. Every wait
 * has a deadline. Not threadsafe: one fault at a time.
 */
final class Faults {

    /** The kinds of fault, with the 5xx statuses a client may see while each is going on. */
    enum Kind {
        /** {@code kill -9} of an instance, started again at once. */
        KILL("kill -9 instance", Set.of(502)),
        /** PostgreSQL stopped (fast, as a service restart; or immediate, as a crash) and started. */
        POSTGRES_RESTART("restart PostgreSQL", Set.of(503)),
        /** Redis killed and started again empty. */
        REDIS_OUTAGE("Redis outage", Set.of()),
        /** {@code SIGSTOP} of an instance for longer than its leases, then {@code SIGCONT}. */
        PAUSE("SIGSTOP instance past its leases", Set.of(502, 504)),
        /** Another session holds a write lock on payments and refunds. */
        SLOW_DATABASE("lock payments and refunds", Set.of(503));

        final String label;
        final Set<Integer> expected5xx;

        Kind(String label, Set<Integer> expected5xx) {
            this.label = label;
            this.expected5xx = expected5xx;
        }
    }

    /** One injected fault: what, where, held how long, and how long the recovery took. */
    record Fault(int number, Kind kind, String target, Instant injectedAt, Instant liftedAt, Instant recoveredAt) {

        Duration held() {
            return Duration.between(injectedAt, liftedAt);
        }

        Duration recovery() {
            return Duration.between(liftedAt, recoveredAt);
        }

        /** Whether {@code at} falls while the fault was on or its recovery went on (plus {@code grace}). */
        boolean covers(Instant at, Duration grace) {
            return !at.isBefore(injectedAt) && !at.isAfter(recoveredAt.plus(grace));
        }
    }

    /** How long PostgreSQL stays down, Redis stays down and the lock is held. */
    static final Duration DOWNTIME = Duration.ofSeconds(3);
    /** How long an instance stays stopped: past its leases. */
    static final Duration PAUSE = FaultCluster.LEASE.plusSeconds(3);

    private static final Duration RECOVERY_DEADLINE = Duration.ofSeconds(120);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final FaultCluster cluster;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1))
            .build();
    private final List<Fault> done = new ArrayList<>();
    private final AtomicInteger canaries = new AtomicInteger();
    private final Map<String, String> canaryIds = new ConcurrentHashMap<>();
    private int postgresRestarts;

    Faults(FaultCluster cluster) {
        this.cluster = cluster;
    }

    List<Fault> done() {
        return List.copyOf(done);
    }

    /** The payments the recovery checks made and saw answered {@code 201}: key to payment id. */
    Map<String, String> canaryIds() {
        return Map.copyOf(canaryIds);
    }

    /** Injects {@code kind} (on instance {@code instance} where it applies) and waits for the recovery. */
    Fault inject(Kind kind, int instance) throws Exception {
        Instant injected = Instant.now();
        String target = "instance " + (instance + 1);
        switch (kind) {
            case KILL -> {
                cluster.kill(instance);
                cluster.restart(instance);
            }
            case POSTGRES_RESTART -> {
                // alternately a clean restart (every session ended) and a crash (no checkpoint)
                boolean crash = postgresRestarts++ % 2 == 1;
                target = crash ? "crash (immediate)" : "restart (fast)";
                cluster.postgres().stop(crash);
                hold(DOWNTIME);
                cluster.postgres().restart();
            }
            case REDIS_OUTAGE -> {
                target = "kill, start empty";
                cluster.redis().kill();
                hold(DOWNTIME);
                cluster.redis().restart();
            }
            case PAUSE -> {
                cluster.suspend(instance, true);
                try {
                    hold(PAUSE);
                } finally {
                    cluster.suspend(instance, false);
                }
            }
            case SLOW_DATABASE -> {
                target = "lock held " + DOWNTIME.toSeconds() + " s";
                try (Connection c = cluster.connect();
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    s.execute("LOCK TABLE payments, refunds IN EXCLUSIVE MODE");
                    hold(DOWNTIME);
                    c.commit();
                }
            }
        }
        Instant lifted = Instant.now();
        awaitRecovery(kind, instance);
        Fault fault = new Fault(done.size() + 1, kind, target, injected, lifted, Instant.now());
        done.add(fault);
        // progress of a long run on the console (the short form's output goes to its report file)
        System.out.printf(
                java.util.Locale.ROOT,
                "fault %d: %s, %s, held %d ms, recovered %d ms after%n",
                fault.number(),
                kind.label,
                target,
                fault.held().toMillis(),
                fault.recovery().toMillis());
        return fault;
    }

    /**
     * Holds a fault for {@code d}: the length of the fault is what is being tested, so this is a
     * sleep by design, not a wait for a state.
     */
    private static void hold(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }

    private void awaitRecovery(Kind kind, int instance) {
        String what = "recovery from " + kind.label;
        switch (kind) {
            case KILL, PAUSE -> {
                await(what)
                        .atMost(RECOVERY_DEADLINE)
                        .pollInterval(POLL)
                        .until(() ->
                                FaultCluster.status(cluster.instance(instance).resolve("/ready"), null) == 200);
                await(what)
                        .atMost(RECOVERY_DEADLINE)
                        .pollInterval(POLL)
                        .until(() -> canaryPaid(cluster.instance(instance)));
            }
            case POSTGRES_RESTART, SLOW_DATABASE -> {
                await(what).atMost(RECOVERY_DEADLINE).pollInterval(POLL).until(cluster::allReady);
                for (int i = 0; i < FaultCluster.INSTANCES; i++) {
                    URI base = cluster.instance(i);
                    await(what).atMost(RECOVERY_DEADLINE).pollInterval(POLL).until(() -> canaryPaid(base));
                }
            }
            case REDIS_OUTAGE -> {
                // every instance counts again (its answers carry a RateLimit budget)
                for (int i = 0; i < FaultCluster.INSTANCES; i++) {
                    URI uri = cluster.instance(i).resolve("/v1/payments?limit=1");
                    await(what).atMost(RECOVERY_DEADLINE).pollInterval(POLL).until(() -> {
                        HttpResponse<Void> r = FaultCluster.get(uri, cluster.loadKey);
                        return r != null
                                && r.statusCode() == 200
                                && r.headers().firstValue("RateLimit").isPresent();
                    });
                }
            }
        }
    }

    /**
     * Whether a payment of the load account (key {@code canary-<n>}) made straight on one instance
     * answers 201 within 2 s: the instance serves normally again. Each key is tried once; a key
     * that did not answer is left as it is (the invariants count its payment, if any).
     */
    private boolean canaryPaid(URI base) {
        String key = "canary-" + canaries.incrementAndGet();
        HttpRequest request = PaymentsClient.paymentRequest(
                base,
                cluster.loadKey,
                key,
                "{\"amount\": 100, \"currency\": \"eur\", \"description\": \"canary\"}",
                Duration.ofSeconds(2));
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 201) {
                return false;
            }
            canaryIds.put(key, JSON.readTree(r.body()).path("id").asText());
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

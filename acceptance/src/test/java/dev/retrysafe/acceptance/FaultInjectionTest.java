package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.acceptance.FaultVerdict.Subscriber;
import dev.retrysafe.acceptance.Faults.Kind;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.testkit.RepositoryRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Distributed mode under fire: {@value FaultCluster#INSTANCES} instances behind nginx on a private
 * PostgreSQL and Redis, a mixed load through nginx (payments and refunds with the retrying
 * client, reports, the rate-limit probe, webhook deliveries to two flaky receivers), and faults
 * injected one after another: {@code kill -9} and restart of instances, PostgreSQL restarted and
 * crashed, Redis killed and started empty, an instance paused past its leases, the database
 * slowed by a lock. Afterwards every promise is checked against the database and the receivers
 * ({@link FaultVerdict}) and the table of figures is printed and written to
 * {@code acceptance/target/fault-suite/<scale>.md}.
 *
 * <p>{@code ./test} runs the short form. The long form (at least 20 kills, 3 database restarts,
 * 3 Redis outages, 10,000 payments) runs with
 * {@code ./mvnw -pl acceptance -Pfaults-long verify} (see docs/operations.md).
 */
@Timeout(value = 150, unit = TimeUnit.MINUTES)
class FaultInjectionTest {

    /** How much load and how many faults: {@code -Dretrysafe.faults=short|long}. */
    record Scale(String name, int paymentWorkers, int payments, List<Kind> faults, Duration calm) {

        static Scale of(String name) {
            return switch (name) {
                case "short" -> new Scale(name, 3, 300, schedule(2, 1, 1, 1, 1), Duration.ofSeconds(2));
                case "long" -> new Scale(name, 6, 10_000, schedule(21, 3, 3, 3, 3), Duration.ofSeconds(3));
                default -> throw new IllegalArgumentException("retrysafe.faults must be short or long, was " + name);
            };
        }

        /** The faults spread over the run: the rarer kinds between runs of kills. */
        private static List<Kind> schedule(int kills, int postgres, int redis, int pauses, int slow) {
            List<Kind> others = new ArrayList<>();
            int[] left = {postgres, pauses, redis, slow};
            Kind[] kinds = {Kind.POSTGRES_RESTART, Kind.PAUSE, Kind.REDIS_OUTAGE, Kind.SLOW_DATABASE};
            for (boolean any = true; any; ) {
                any = false;
                for (int k = 0; k < kinds.length; k++) {
                    if (left[k]-- > 0) {
                        others.add(kinds[k]);
                        any = true;
                    }
                }
            }
            List<Kind> all = new ArrayList<>();
            int killsLeft = kills;
            for (int i = 0; i < others.size(); i++) {
                int share = (killsLeft + others.size() - i - 1) / (others.size() - i);
                for (int k = 0; k < share; k++) {
                    all.add(Kind.KILL);
                }
                killsLeft -= share;
                all.add(others.get(i));
            }
            for (; killsLeft > 0; killsLeft--) {
                all.add(Kind.KILL);
            }
            return List.copyOf(all);
        }
    }

    private static final Duration SETTLE_DEADLINE = Duration.ofSeconds(180);
    /** A backlog that does not shrink for this long is stuck. */
    private static final Duration STALL = Duration.ofMinutes(2);

    private static final Duration DRAIN_DEADLINE = Duration.ofMinutes(30);
    private static final Set<String> PAYMENT_EVENTS = Set.of("payment.succeeded", "payment.failed", "refund.created");

    @Test
    void mixedLoadKeepsEveryPromiseWhileInstancesDatabaseAndRedisFail() throws Exception {
        Scale scale =
                Scale.of(System.getProperty("retrysafe.faults", "short").strip().toLowerCase(Locale.ROOT));
        Instant started = Instant.now();
        try (FaultCluster cluster = FaultCluster.start(RepositoryRoot.find());
                WebhookReceiver payments = WebhookReceiver.start();
                WebhookReceiver everything = WebhookReceiver.start();
                FaultLoad load = new FaultLoad(cluster)) {
            try {
                // given: two subscribers that fail a quarter of the deliveries they get
                Api api = new Api(cluster.entry(), cluster.loadKey);
                List<Subscriber> subscribers = List.of(
                        subscribe(api, "payments", payments, PAYMENT_EVENTS),
                        subscribe(api, "everything", everything, Set.of("*")));

                // when: the load runs while the faults come one after another
                load.start(scale.paymentWorkers());
                await("the first payments").atMost(Duration.ofSeconds(60)).until(() -> load.paid() >= 10);
                Faults faults = new Faults(cluster);
                // each kind of fault moves on to the next instance each time (kill 1, 2, 3, 1, ...)
                java.util.Map<Kind, Integer> next = new java.util.EnumMap<>(Kind.class);
                for (Kind kind : scale.faults()) {
                    Thread.sleep(scale.calm().toMillis()); // pacing: calm load between two faults
                    faults.inject(kind, (next.merge(kind, 1, Integer::sum) - 1) % FaultCluster.INSTANCES);
                }
                await("at least " + scale.payments() + " payments")
                        .atMost(Duration.ofMinutes(60))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> load.paid() >= scale.payments());
                load.stop();
                assertThat(load.failures()).as("load threads").isEmpty();

                // then: once everything is back, the calls that gave up are made again, the jobs
                // finish and the deliveries end; then every promise is checked
                cluster.awaitAllReady(SETTLE_DEADLINE);
                int reconciled = load.reconcile();
                FaultVerdict verdict = new FaultVerdict();
                drain(
                        cluster,
                        verdict,
                        "reports",
                        "SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')",
                        "SELECT status, COUNT(*), MIN(due_at), MAX(attempts) FROM jobs GROUP BY status");
                drain(
                        cluster,
                        verdict,
                        "deliveries",
                        "SELECT COUNT(*) FROM deliveries WHERE next_attempt_at IS NOT NULL",
                        "SELECT status, COUNT(*), MIN(next_attempt_at), MAX(attempts), COUNT(lease_owner) FROM deliveries"
                                + " GROUP BY status");

                try (Connection c = cluster.connect()) {
                    verdict.checkPayments(
                            c, accountId(c, cluster.loadKey), load.outcomes(), faults.canaryIds(), reconciled);
                    verdict.checkEvents(c, subscribers);
                    verdict.checkJobs(c, load.jobIds(), load.reportsGivenUp());
                }
                verdict.checkRateLimit(
                        load.probes(),
                        faults.done(),
                        FaultCluster.PROBE_QUOTA,
                        FaultCluster.PROBE_WINDOW,
                        FaultCluster.PROBE_BURST);
                verdict.checkServerErrors(load.attempts(), faults.done(), cluster.internalErrors());
                String table = verdict.table(
                        faults.done(),
                        "Fault-injection run, " + scale.name() + " form ("
                                + FaultCluster.INSTANCES + " instances, "
                                + Duration.between(started, Instant.now()).toSeconds()
                                + " s)");
                report(scale, table);
                assertThat(verdict.violations())
                        .as("violated invariants; the table:\n%s", table)
                        .isEmpty();
            } catch (Throwable failure) {
                cluster.attachLogs(failure);
                throw failure;
            }
        }
    }

    /**
     * Waits until {@code unfinished} counts none, for as long as the count keeps going down: a
     * backlog may take minutes to drain after a long run, but one that stops shrinking for
     * {@link #STALL} is stuck, and the test fails with {@code breakdown} (every wait is bounded
     * by {@link #DRAIN_DEADLINE} too). Notes the backlog and the time it took in the table.
     */
    private static void drain(
            FaultCluster cluster, FaultVerdict verdict, String what, String unfinished, String breakdown)
            throws Exception {
        long initial = count(cluster, unfinished);
        long started = System.nanoTime();
        long[] last = {initial, started};
        await(what + " finished")
                .atMost(DRAIN_DEADLINE)
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    long left = count(cluster, unfinished);
                    long now = System.nanoTime();
                    if (left < last[0]) {
                        last[0] = left;
                        last[1] = now;
                    } else if (left > 0 && now - last[1] > STALL.toNanos()) {
                        throw new AssertionError(left + " " + what + " unfinished and none finished for " + STALL + ": "
                                + rows(cluster, breakdown));
                    }
                    return left == 0;
                });
        verdict.note(
                what + " unfinished when the load stopped",
                initial == 0
                        ? "0"
                        : initial + " (all finished "
                                + Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s later)");
    }

    private static String rows(FaultCluster cluster, String sql) throws Exception {
        StringBuilder sb = new StringBuilder();
        try (Connection c = cluster.connect();
                java.sql.Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                sb.append('[');
                for (int i = 1; i <= columns; i++) {
                    sb.append(i > 1 ? ", " : "")
                            .append(rs.getMetaData().getColumnLabel(i))
                            .append('=')
                            .append(rs.getString(i));
                }
                sb.append("] ");
            }
        }
        return sb.append("at ").append(System.currentTimeMillis()).toString();
    }

    private static Subscriber subscribe(Api api, String name, WebhookReceiver receiver, Set<String> types) {
        String list = String.join(
                ", ", types.stream().map(t -> "\"" + t + "\"").sorted().toList());
        Api.Answer endpoint = api.post(
                "/v1/webhook_endpoints", "{\"url\": \"" + receiver.url() + "\", \"event_types\": [" + list + "]}");
        assertThat(endpoint.status()).as(endpoint.raw().body()).isEqualTo(201);
        receiver.trust(endpoint.body().get("secret").asText());
        receiver.flaky(0.2, 0.05);
        return new Subscriber(name, receiver, types);
    }

    private static long count(FaultCluster cluster, String sql) throws Exception {
        try (Connection c = cluster.connect()) {
            return Queries.count(c, sql);
        }
    }

    private static String accountId(Connection c, String apiKey) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT account_id FROM api_keys WHERE key_hash = ?")) {
            ps.setString(1, ApiKeys.hash(apiKey));
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("the load account").isTrue();
                return rs.getString(1);
            }
        }
    }

    /** Prints the table and writes it to {@code target/fault-suite/<scale>.md}. */
    private static void report(Scale scale, String table) throws IOException {
        System.out.println(table);
        Path dir = Files.createDirectories(Path.of("target", "fault-suite"));
        Files.writeString(dir.resolve(scale.name() + ".md"), table, StandardCharsets.UTF_8);
    }
}

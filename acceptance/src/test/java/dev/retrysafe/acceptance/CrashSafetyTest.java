package dev.retrysafe.acceptance;

import static dev.retrysafe.acceptance.Queries.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.server.bank.ChargeKeys;
import dev.retrysafe.server.config.DatabaseConfig;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Crash safety, process level: a server process is killed with SIGKILL while eight clients make
 * payments and retry them with the same Idempotency-Key on every connection error, timeout,
 * {@code 409} and {@code 5xx}. The server is restarted on the same port and database; once every
 * client has its {@code 201} for every key, each key has exactly one payment (the one its client
 * was told about), one bank charge and one event, and no key is left in progress: the claims the
 * dead process held were taken over when their 2 s lease ran out.
 *
 * <p>"No key in progress" is asserted as zero rows with {@code completed_at IS NULL}, not as
 * "none past its lease": every key ends with a {@code 201}, and a 201 is sent only after the row
 * was completed (first run) or found completed (replay); no other requests are made. So a row
 * still in progress at the end can only be a claim nobody finished or took over: a stuck key.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CrashSafetyTest {

    private static final int CLIENTS = 8;
    private static final int PAYMENTS_PER_CLIENT = 40;
    private static final int TOTAL = CLIENTS * PAYMENTS_PER_CLIENT;
    /** Kill once this many payments have their 201, well before the clients are done. */
    private static final int KILL_AFTER = TOTAL / 4;

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final int BANK_LATENCY_MS = 50;
    /** How long a request must have been under way to count as inside the server at the kill. */
    private static final Duration UNDER_WAY = Duration.ofMillis(10);

    private static final Duration CLIENT_DEADLINE = Duration.ofSeconds(45);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration START_DEADLINE = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    // generations of the server the clients talk to, read by each attempt before it is sent
    private static final int FIRST = 1;
    private static final int DOWN = 2;
    private static final int SECOND = 3;

    @TempDir
    Path dir;

    /** With advisory-lock claims (the default on PostgreSQL) and with claim rows. */
    @ParameterizedTest(name = "claims: {0}")
    @ValueSource(strings = {"locks", "rows"})
    void killedPostgresServerLeavesExactlyOnePaymentPerKeyAndNoStuckKey(String claims) throws Exception {
        try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
            crashUnderLoad(new Postgres(db), claims);
        }
    }

    @Test
    void killedH2ServerLeavesExactlyOnePaymentPerKeyAndNoStuckKey() throws Exception {
        crashUnderLoad(new H2File(dir.resolve("data")), "auto");
    }

    private void crashUnderLoad(Store store, String claims) throws Exception {
        String apiKey = "acc_crash_" + UUID.randomUUID().toString().replace("-", "");
        int port = ServerProcess.freePort();
        Path config = dir.resolve("retrysafe.yaml");
        Files.writeString(config, """
                idempotency:
                  lease: %ds
                  claims: %s
                # about crashes, not limits: the retrying clients would otherwise be slowed by 429s
                rate_limits:
                  enabled: false
                shutdown:
                  timeout: 5s
                """.formatted(LEASE.toSeconds(), claims), StandardCharsets.UTF_8);
        Map<String, String> settings = new HashMap<>(store.environment());
        settings.put("PORT", Integer.toString(port));
        settings.put("RETRYSAFE_HOST", "127.0.0.1");
        settings.put("RETRYSAFE_DATA_DIR", dir.resolve("data").toString());
        settings.put("RETRYSAFE_BANK_LATENCY_MS", Integer.toString(BANK_LATENCY_MS));
        settings.put("RETRYSAFE_BOOTSTRAP_API_KEYS", apiKey);
        Map<String, String> env = ServerProcess.environment(settings);
        List<String> command = ServerProcess.java("--config", config.toString());
        URI base = ServerProcess.base(port);

        AtomicInteger generation = new AtomicInteger(FIRST);
        AtomicInteger paid = new AtomicInteger();
        List<Client> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            clients.add(new Client(c, base, apiKey, generation, paid));
        }
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        ServerProcess first = null;
        ServerProcess second = null;
        try {
            long began = System.nanoTime();
            first = ServerProcess.start("server-1", command, env, dir, dir);
            first.awaitReady(port, START_DEADLINE);
            long firstReady = System.nanoTime();

            List<Future<?>> running = new ArrayList<>();
            for (Client client : clients) {
                running.add(pool.submit(() -> {
                    client.payAll();
                    return null;
                }));
            }
            // kill midway, at a moment when most clients have a request under way for a while:
            // past authentication and the claim, held by the bank's latency
            await("at least " + KILL_AFTER + " payments answered 201 and " + CLIENTS / 2 + " requests under way for "
                            + UNDER_WAY.toMillis() + " ms")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> {
                        failIfAnyClientFailed(running);
                        long now = System.nanoTime();
                        return paid.get() >= KILL_AFTER
                                && clients.stream()
                                                .filter(c -> c.underWayFor(now) >= UNDER_WAY.toNanos())
                                                .count()
                                        >= CLIENTS / 2;
                    });

            generation.set(DOWN);
            long killedAt = System.nanoTime();
            first.kill9();
            int paidAtKill = paid.get();
            assertThat(paidAtKill)
                    .as("payments answered before the kill (the kill must come midway)")
                    .isLessThan(TOTAL);
            CrashState atCrash = store.queryableWhileDown() ? store.inspectAfterCrash() : null;

            long restartStart = System.nanoTime();
            second = ServerProcess.start("server-2", command, env, dir, dir);
            second.awaitReady(port, START_DEADLINE);
            generation.set(SECOND);
            Duration restart = Duration.ofNanos(System.nanoTime() - restartStart);

            long deadline = System.nanoTime() + CLIENT_DEADLINE.toNanos();
            for (Future<?> f : running) {
                f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }

            long clientsDone = System.nanoTime();
            Map<String, Paid> answers = new LinkedHashMap<>();
            clients.forEach(c -> answers.putAll(c.paid));
            assertThat(answers).as("a 201 for every key").hasSize(TOTAL);
            List<Attempt> attempts =
                    clients.stream().flatMap(c -> c.attempts.stream()).toList();
            printSummary(store, paidAtKill, restart, atCrash, attempts);
            System.out.printf(
                    "%s: first start %d ms, load until the kill %d ms, clients done %d ms after the kill%n",
                    store, millis(firstReady - began), millis(killedAt - firstReady), millis(clientsDone - killedAt));

            // at least one request was inside the first server when it died, and was retried on the second
            Set<String> lostInFlight = attempts.stream()
                    .filter(a -> a.startedIn() == FIRST && a.lostInFlight())
                    .map(Attempt::key)
                    .collect(Collectors.toSet());
            assertThat(lostInFlight)
                    .as("keys whose request was cut off by the kill")
                    .isNotEmpty();
            assertThat(lostInFlight)
                    .as("keys cut off by the kill got their 201 from an attempt after the kill")
                    .allSatisfy(k -> assertThat(answers.get(k).startedIn()).isGreaterThan(FIRST));
            if (atCrash != null && claims.equals("locks")) {
                // an advisory lock ends with its connection: the kill left no claim behind
                assertThat(atCrash.inProgressKeys())
                        .as("claim rows (advisory locks write none)")
                        .isEmpty();
                assertThat(atCrash.paymentsWithoutCompletedKey())
                        .as("payments committed without their stored answer")
                        .isZero();
                assertThat(atCrash.completedKeysWithoutPayment())
                        .as("stored answers committed without their payment")
                        .isZero();
            } else if (atCrash != null) {
                assertThat(atCrash.inProgressKeys())
                        .as("claims the killed server held (requests in flight)")
                        .isNotEmpty();
                assertThat(atCrash.leaseMillis())
                        .as("lease of those claims (the configured one)")
                        .containsExactly(LEASE.toMillis());
                assertThat(atCrash.paymentsWithoutCompletedKey())
                        .as("payments committed without their stored answer")
                        .isZero();
                assertThat(atCrash.completedKeysWithoutPayment())
                        .as("stored answers committed without their payment")
                        .isZero();
                assertThat(atCrash.inProgressKeys())
                        .as("claims orphaned by the kill were retried after it")
                        .allSatisfy(k -> assertThat(answers.get(k).startedIn()).isGreaterThan(FIRST));
            }

            // first without changing anything: every payment a client was told about is there
            assertPaymentsListed(base, apiKey, answers);
            if (store.queryableWhileUp()) {
                assertDatabase(store, apiKey, answers);
            }
            // every key replays the payment its client was told about
            replayAll(base, apiKey, answers);
            int code = second.terminate(Duration.ofSeconds(20));
            assertThat(code).as("server-2 stops on SIGTERM within 20 s").isEqualTo(ServerProcess.EXIT_SIGTERM);
            // after a graceful stop too (for H2 the only way in: the file belongs to the server while it runs)
            assertDatabase(store, apiKey, answers);
            System.out.printf("%s: checks took %d ms%n", store, millis(System.nanoTime() - clientsDone));
        } catch (Throwable t) {
            ServerProcess.attachLogs(t, Arrays.asList(first, second));
            throw t;
        } finally {
            pool.shutdownNow();
            boolean stopped = pool.awaitTermination(15, TimeUnit.SECONDS);
            try {
                if (first != null) {
                    first.close();
                }
            } finally {
                if (second != null) {
                    second.close();
                }
            }
            assertThat(stopped).as("client threads stopped").isTrue();
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static void failIfAnyClientFailed(List<Future<?>> running) throws Exception {
        for (Future<?> f : running) {
            if (f.isDone()) {
                f.get(); // throws the client's failure; a client done this early is fine
            }
        }
    }

    /** Lists the account's payments page by page and compares them with what the clients were told. */
    private static void assertPaymentsListed(URI base, String apiKey, Map<String, Paid> answers) throws Exception {
        Map<String, Long> listed = new HashMap<>();
        try (HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build()) {
            String after = null;
            for (int page = 0; page <= TOTAL / 100 + 1; page++) {
                String query = "/v1/payments?limit=100" + (after == null ? "" : "&starting_after=" + after);
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(base.resolve(query))
                                .timeout(REQUEST_TIMEOUT)
                                .header("Authorization", "Bearer " + apiKey)
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as("GET %s: %s", query, r.body()).isEqualTo(200);
                JsonNode body = JSON.readTree(r.body());
                for (JsonNode p : body.path("data")) {
                    listed.put(p.path("id").asText(), p.path("amount").asLong());
                    after = p.path("id").asText();
                }
                if (!body.path("has_more").asBoolean()) {
                    break;
                }
            }
        }
        List<String> missing = answers.entrySet().stream()
                .filter(e -> !Long.valueOf(e.getValue().amount())
                        .equals(listed.get(e.getValue().paymentId())))
                .map(e -> e.getKey() + " -> " + e.getValue())
                .toList();
        assertThat(missing)
                .as("payments answered 201 to a client but not listed after the restart")
                .isEmpty();
        assertThat(listed).as("payments listed").hasSize(TOTAL);
    }

    private static void replayAll(URI base, String apiKey, Map<String, Paid> answers) throws Exception {
        try (HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build()) {
            for (Map.Entry<String, Paid> e : answers.entrySet()) {
                HttpResponse<String> r = http.send(
                        paymentRequest(base, apiKey, e.getKey(), e.getValue().amount()),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode())
                        .as("replay of %s: %s", e.getKey(), r.body())
                        .isEqualTo(201);
                assertThat(r.headers().firstValue("Idempotent-Replayed"))
                        .as("replay of %s: %s", e.getKey(), r.body())
                        .contains("true");
                assertThat(JSON.readTree(r.body()).path("id").asText())
                        .as("replayed payment id of %s", e.getKey())
                        .isEqualTo(e.getValue().paymentId());
            }
        }
    }

    private static void assertDatabase(Store store, String apiKey, Map<String, Paid> answers) throws SQLException {
        try (Connection c = store.connect()) {
            String account = single(c, "SELECT account_id FROM api_keys WHERE key_hash = ?", ApiKeys.hash(apiKey));

            Map<String, Integer> perKey = new HashMap<>();
            Map<String, String> idOf = new HashMap<>();
            Map<String, Long> amountOf = new HashMap<>();
            Set<String> statuses = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT idempotency_key, id, amount, status FROM payments WHERE account_id = ?")) {
                ps.setString(1, account);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        perKey.merge(rs.getString(1), 1, Integer::sum);
                        idOf.put(rs.getString(1), rs.getString(2));
                        amountOf.put(rs.getString(1), rs.getLong(3));
                        statuses.add(rs.getString(4));
                    }
                }
            }
            assertThat(perKey.entrySet())
                    .as("idempotency keys with more than one payment")
                    .filteredOn(e -> e.getValue() != 1)
                    .isEmpty();
            assertThat(perKey.keySet()).as("keys that have a payment").isEqualTo(answers.keySet());
            assertThat(count(c, "SELECT count(*) FROM payments"))
                    .as("payments in the database")
                    .isEqualTo(TOTAL);
            assertThat(statuses).as("payment statuses (nothing is declined)").containsExactly("succeeded");
            answers.forEach((key, paid) -> {
                assertThat(idOf.get(key))
                        .as("stored payment of %s is the one its client got", key)
                        .isEqualTo(paid.paymentId());
                assertThat(amountOf.get(key)).as("amount of %s", key).isEqualTo(paid.amount());
            });

            assertThat(count(c, "SELECT count(*) FROM idempotency_keys WHERE completed_at IS NULL"))
                    .as("idempotency keys left in progress (stuck claims)")
                    .isZero();
            assertThat(count(c, "SELECT count(*) FROM idempotency_keys WHERE response_status = 201"))
                    .as("keys with a stored 201")
                    .isEqualTo(TOTAL);
            assertThat(count(c, "SELECT count(*) FROM idempotency_keys"))
                    .as("idempotency keys")
                    .isEqualTo(TOTAL);

            Map<String, String[]> charges = new HashMap<>();
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT charge_key, outcome, amount FROM bank_charges WHERE account_id = ?")) {
                ps.setString(1, account);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        charges.put(rs.getString(1), new String[] {rs.getString(2), Long.toString(rs.getLong(3))});
                    }
                }
            }
            assertThat(count(c, "SELECT count(*) FROM bank_charges"))
                    .as("bank charges: one per payment, no more")
                    .isEqualTo(TOTAL);
            answers.forEach((key, paid) -> assertThat(charges.get(ChargeKeys.derive(account, key)))
                    .as("the bank charge of %s", key)
                    .containsExactly("APPROVED", Long.toString(paid.amount())));

            assertThat(count(c, "SELECT count(*) FROM events WHERE type = 'payment.succeeded'"))
                    .as("payment.succeeded events: one per payment")
                    .isEqualTo(TOTAL);
            assertThat(count(c, "SELECT count(*) FROM events")).as("events").isEqualTo(TOTAL);
        }
    }

    private void printSummary(
            Store store, int paidAtKill, Duration restart, @Nullable CrashState atCrash, List<Attempt> attempts) {
        Map<String, Long> outcomes = attempts.stream()
                .collect(Collectors.groupingBy(
                        a -> (a.startedIn() == FIRST ? "first:" : a.startedIn() == DOWN ? "down:" : "second:")
                                + a.outcome(),
                        java.util.TreeMap::new,
                        Collectors.counting()));
        System.out.printf(
                "%s: %d of %d paid at the kill; restart took %d ms; %s; attempts by generation and outcome: %s%n",
                store,
                paidAtKill,
                TOTAL,
                restart.toMillis(),
                atCrash == null
                        ? "database not inspected at the crash"
                        : atCrash.inProgressKeys().size() + " claims in progress at the crash, "
                                + atCrash.chargedButUnpaid() + " of them already charged by the bank",
                outcomes);
    }

    private static HttpRequest paymentRequest(URI base, String apiKey, String key, long amount) {
        String body =
                "{\"amount\": " + amount + ", \"currency\": \"eur\", \"description\": \"crash safety " + key + "\"}";
        return PaymentsClient.paymentRequest(base, apiKey, key, body, REQUEST_TIMEOUT);
    }

    /** One try of one key: the server generation when it was sent, and what came back. */
    record Attempt(String key, int startedIn, String outcome, boolean lostInFlight) {}

    /** The 201 a client got for a key. */
    record Paid(String paymentId, long amount, int startedIn, boolean replayed) {}

    /**
     * A client that pays its keys one after another and retries each with the same key and body
     * until it gets a 201. Its state is read by the test thread after its future completed.
     */
    private static final class Client {
        private final int number;
        private final URI base;
        private final String apiKey;
        private final AtomicInteger generation;
        private final AtomicInteger paidCounter;
        final Map<String, Paid> paid = new LinkedHashMap<>();
        final List<Attempt> attempts = new ArrayList<>();
        /** {@link System#nanoTime()} when the request under way was sent; 0 between requests. */
        private volatile long sentAt;

        Client(int number, URI base, String apiKey, AtomicInteger generation, AtomicInteger paidCounter) {
            this.number = number;
            this.base = base;
            this.apiKey = apiKey;
            this.generation = generation;
            this.paidCounter = paidCounter;
        }

        /** How long the request under way has been, in nanoseconds at {@code now}; 0 when none is. */
        long underWayFor(long now) {
            long sent = sentAt;
            return sent == 0 ? 0 : now - sent;
        }

        void payAll() throws Exception {
            long deadline = System.nanoTime() + CLIENT_DEADLINE.toNanos();
            try (HttpClient http = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(1))
                    .build()) {
                for (int i = 0; i < PAYMENTS_PER_CLIENT; i++) {
                    String key = "crash-" + number + "-" + i + "-" + UUID.randomUUID();
                    long amount = 1_000L + number * 100L + i;
                    paid.put(key, pay(http, key, amount, deadline));
                    paidCounter.incrementAndGet();
                }
            }
        }

        private Paid pay(HttpClient http, String key, long amount, long deadline) throws Exception {
            HttpRequest request = paymentRequest(base, apiKey, key, amount);
            while (true) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("client " + number + " got no 201 for " + key + " within "
                            + CLIENT_DEADLINE + "; its attempts: "
                            + attempts.stream().filter(a -> a.key().equals(key)).toList());
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException("client " + number + " stopped");
                }
                int startedIn = generation.get();
                HttpResponse<String> r;
                sentAt = System.nanoTime();
                try {
                    r = http.send(request, HttpResponse.BodyHandlers.ofString());
                } catch (IOException e) {
                    sentAt = 0;
                    // refused or cut off: the server is down or died under this request; same key again
                    boolean beforeConnecting =
                            e instanceof ConnectException || e instanceof HttpConnectTimeoutException;
                    attempts.add(new Attempt(key, startedIn, e.getClass().getSimpleName(), !beforeConnecting));
                    backOff(50);
                    continue;
                }
                sentAt = 0;
                int status = r.statusCode();
                attempts.add(new Attempt(key, startedIn, Integer.toString(status), false));
                if (status == 201) {
                    JsonNode body = JSON.readTree(r.body());
                    String id = body.path("id").asText();
                    assertThat(id).as("payment id of %s", key).startsWith("pay_");
                    assertThat(body.path("amount").asLong())
                            .as("amount of %s", key)
                            .isEqualTo(amount);
                    assertThat(body.path("status").asText())
                            .as("status of %s", key)
                            .isEqualTo("succeeded");
                    assertThat(r.headers().firstValue("Location"))
                            .as("Location of %s", key)
                            .contains("/v1/payments/" + id);
                    return new Paid(
                            id,
                            amount,
                            startedIn,
                            r.headers()
                                    .firstValue("Idempotent-Replayed")
                                    .orElse("")
                                    .equals("true"));
                }
                if (status == 409 || status >= 500) {
                    // still in flight elsewhere (a claim whose holder may be dead) or a server error
                    backOff(50);
                    continue;
                }
                throw new AssertionError(
                        "client " + number + ": unexpected " + status + " for " + key + ": " + r.body());
            }
        }

        /** A client's pause before its next try (the behaviour under test, not a wait for a state). */
        private static void backOff(long millis) throws InterruptedException {
            Thread.sleep(millis);
        }
    }

    /** What the database held right after the kill, before the restart. */
    record CrashState(
            Set<String> inProgressKeys,
            Set<Long> leaseMillis,
            long paymentsWithoutCompletedKey,
            long completedKeysWithoutPayment,
            long chargedButUnpaid) {}

    /** The database of a test: its server settings and a way in for the assertions. */
    private interface Store {
        Map<String, String> environment();

        /** A connection for assertions; the caller closes it. */
        Connection connect() throws SQLException;

        /** Whether {@link #connect()} may be used while a server runs. */
        boolean queryableWhileUp();

        /** Whether {@link #connect()} may be used between the kill and the restart. */
        boolean queryableWhileDown();

        default CrashState inspectAfterCrash() throws SQLException {
            try (Connection c = connect()) {
                Set<String> inProgress = new HashSet<>();
                Set<Long> leases = new HashSet<>();
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("""
                             SELECT idem_key, lease_expires_at - created_at FROM idempotency_keys
                             WHERE completed_at IS NULL""")) {
                    while (rs.next()) {
                        inProgress.add(rs.getString(1));
                        leases.add(rs.getLong(2));
                    }
                }
                long paymentsWithoutKey = count(c, """
                        SELECT count(*) FROM payments p WHERE NOT EXISTS (
                          SELECT 1 FROM idempotency_keys k
                          WHERE k.idem_key = p.idempotency_key AND k.completed_at IS NOT NULL)""");
                long keysWithoutPayment = count(c, """
                        SELECT count(*) FROM idempotency_keys k WHERE k.completed_at IS NOT NULL AND NOT EXISTS (
                          SELECT 1 FROM payments p WHERE p.idempotency_key = k.idem_key)""");
                long charged =
                        count(c, "SELECT count(*) FROM bank_charges") - count(c, "SELECT count(*) FROM payments");
                return new CrashState(inProgress, leases, paymentsWithoutKey, keysWithoutPayment, charged);
            }
        }
    }

    private record Postgres(PostgresTestDatabase db) implements Store {
        @Override
        public Map<String, String> environment() {
            return Map.of("RETRYSAFE_DATABASE_URL", db.jdbcUrl(), "RETRYSAFE_DATABASE_USER", db.user());
        }

        @Override
        public Connection connect() throws SQLException {
            return db.connect();
        }

        @Override
        public boolean queryableWhileUp() {
            return true;
        }

        @Override
        public boolean queryableWhileDown() {
            return true;
        }

        @Override
        public String toString() {
            return "PostgreSQL";
        }
    }

    /**
     * The embedded H2 file. Only one process may open it, so the test looks only after the server
     * stopped gracefully; it does not open it between the kill and the restart either, so that the
     * restarted server itself recovers the file the killed one left.
     */
    private record H2File(Path dataDir) implements Store {
        @Override
        public Map<String, String> environment() {
            return Map.of();
        }

        @Override
        public Connection connect() throws SQLException {
            return DriverManager.getConnection(new DatabaseConfig(null, "", "", 2).jdbcUrl(dataDir), "", "");
        }

        @Override
        public boolean queryableWhileUp() {
            return false;
        }

        @Override
        public boolean queryableWhileDown() {
            return false;
        }

        @Override
        public String toString() {
            return "H2 file";
        }
    }

    private static String single(Connection c, String sql, String param) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("a row for %s", sql).isTrue();
                return rs.getString(1);
            }
        }
    }
}

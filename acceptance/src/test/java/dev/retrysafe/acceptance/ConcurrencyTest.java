package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.bank.Bank;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Many clients retrying at once, on H2 and on PostgreSQL: whatever the interleaving, one key makes
 * one payment, and every successful answer for a key is byte for byte the same.
 */
class ConcurrencyTest {

    private static final int THREADS = 32;
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Duration RUN_DEADLINE = Duration.ofSeconds(120);
    private static final String PAYMENT = "{\"amount\": 500, \"currency\": \"eur\", \"description\": \"load\"}";
    private static final ObjectMapper JSON = new ObjectMapper();

    enum Storage { H2, POSTGRESQL }

    /**
     * 200 tries of one payment from 32 threads. The first try is held at the bank until 64 others
     * have been answered {@code 409}, so the "still running" path is certainly taken; the last 50
     * tries are sent after the first try's answer arrived, so the replay path is too.
     */
    @ParameterizedTest(name = "on {0}")
    @EnumSource(Storage.class)
    void twoHundredTriesOfOneKeyFrom32ThreadsMakeOnePaymentAndOneAnswer(Storage storage) throws Exception {
        int requests = 200;
        int sentAfterTheAnswer = 50;
        int inUseBeforeRelease = 64;
        CountDownLatch enoughInUse = new CountDownLatch(inUseBeforeRelease);
        CountDownLatch originalAnswered = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        AtomicBoolean holdRanOut = new AtomicBoolean();
        Bank.Processing holdFirst = (chargeKey, latency) -> {
            if (first.compareAndSet(true, false)
                    && !enoughInUse.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                holdRanOut.set(true);
            }
            Bank.Processing.SLEEP.process(chargeKey, latency);
        };

        try (Deployment d = Deployment.start(storage,
                b -> b.bankLatency(Duration.ofMillis(20)).bankProcessing(holdFirst));
             HttpClient http = newClient()) {
            Client client = new Client(http, d.server);
            AtomicInteger next = new AtomicInteger();
            AtomicReferenceArray<HttpResponse<byte[]>> answers = new AtomicReferenceArray<>(requests);
            List<Callable<Void>> workers = new ArrayList<>();
            for (int w = 0; w < THREADS; w++) {
                workers.add(() -> {
                    for (int i = next.getAndIncrement(); i < requests; i = next.getAndIncrement()) {
                        if (i >= requests - sentAfterTheAnswer
                                && !originalAnswered.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                            throw new AssertionError("no try was answered with a new payment");
                        }
                        HttpResponse<byte[]> r = client.pay("one-key", PAYMENT);
                        answers.set(i, r);
                        if (r.statusCode() == 409) {
                            enoughInUse.countDown();
                        } else if (r.statusCode() == 201 && !replayed(r)) {
                            originalAnswered.countDown();
                        }
                    }
                    return null;
                });
            }
            runTogether(workers);

            List<HttpResponse<byte[]>> all = IntStream.range(0, requests).mapToObj(answers::get).toList();
            assertThat(all).doesNotContainNull();
            Map<Integer, Long> byStatus = all.stream()
                    .collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
            assertThat(byStatus.keySet()).as("statuses %s", byStatus).containsOnly(201, 409);
            List<HttpResponse<byte[]>> successes = all.stream().filter(r -> r.statusCode() / 100 == 2).toList();
            assertThat(successes.stream().filter(r -> !replayed(r))).as("answers that ran the payment").hasSize(1);
            assertThat(successes.size() - 1).as("replays").isGreaterThanOrEqualTo(sentAfterTheAnswer);
            HttpResponse<byte[]> answer = successes.get(0);
            for (HttpResponse<byte[]> r : successes) {
                assertSameAnswer(r, answer);
            }
            List<HttpResponse<byte[]>> inUse = all.stream().filter(r -> r.statusCode() == 409).toList();
            assertThat(inUse).hasSizeGreaterThanOrEqualTo(inUseBeforeRelease);
            for (HttpResponse<byte[]> r : inUse) {
                assertThat(json(r).get("type").asText()).isEqualTo("/problems/idempotency-key-in-use");
                assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
            }

            assertThat(d.paymentsPerKey()).isEqualTo(Map.of("one-key", 1L));
            assertThat(d.paymentIdsByKey()).isEqualTo(Map.of("one-key", json(answer).get("id").asText()));
            assertThat(d.count("SELECT COUNT(*) FROM bank_charges")).isEqualTo(1);
            assertThat(holdRanOut).as("64 tries were answered 409 while the first was at the bank").isFalse();
        }
    }

    /**
     * 1,000 payments, each sent three times at once, by 32 threads that retry every {@code 409}
     * until they get an answer: one payment per key and one answer per key.
     */
    @ParameterizedTest(name = "on {0}")
    @EnumSource(Storage.class)
    void aThousandKeysEachSentThreeTimesAtOnceMakeOnePaymentPerKey(Storage storage) throws Exception {
        int keys = 1_000;
        int copies = 3;
        try (Deployment d = Deployment.start(storage, b -> b.bankLatency(Duration.ofMillis(5)));
             HttpClient http = newClient()) {
            Client client = new Client(http, d.server);
            Map<String, List<HttpResponse<byte[]>>> answers = new ConcurrentHashMap<>();
            AtomicInteger inUseAnswers = new AtomicInteger();
            List<Callable<Void>> tasks = new ArrayList<>();
            // the copies of one key are next to each other in the queue, so they run at the same time
            for (int k = 0; k < keys; k++) {
                String key = "key-" + k;
                for (int c = 0; c < copies; c++) {
                    tasks.add(() -> {
                        HttpResponse<byte[]> r = client.payUntilAnswered(key, PAYMENT, inUseAnswers);
                        answers.computeIfAbsent(key, x -> new CopyOnWriteArrayList<>()).add(r);
                        return null;
                    });
                }
            }
            runTogether(tasks);

            assertThat(answers).hasSize(keys);
            Map<String, String> answeredIds = new HashMap<>();
            answers.forEach((key, list) -> {
                assertThat(list).as(key).hasSize(copies);
                for (HttpResponse<byte[]> r : list) {
                    assertThat(r.statusCode()).as("%s: %s", key, text(r)).isEqualTo(201);
                    assertSameAnswer(r, list.get(0));
                }
                assertThat(list.stream().filter(r -> !replayed(r))).as("%s: answers that ran the payment", key)
                        .hasSize(1);
                answeredIds.put(key, json(list.get(0)).get("id").asText());
            });

            Map<String, Long> perKey = d.paymentsPerKey();
            assertThat(perKey).hasSize(keys);
            assertThat(perKey.values()).as("payments per key").containsOnly(1L);
            assertThat(d.count("SELECT COUNT(*) FROM payments")).isEqualTo(keys);
            assertThat(d.paymentIdsByKey()).isEqualTo(answeredIds);
            assertThat(d.count("SELECT COUNT(*) FROM bank_charges")).isEqualTo(keys);
            System.out.printf("%s: %d answers were 409 and retried%n", storage, inUseAnswers.get());
        }
    }

    /**
     * Runs every task on {@link #THREADS} threads, all released by one start gate, and waits for
     * all of them within {@link #RUN_DEADLINE}; fails if any task fails or the deadline passes.
     */
    private static void runTogether(List<Callable<Void>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch gate = new CountDownLatch(1);
            List<Future<Void>> futures = new ArrayList<>();
            for (Callable<Void> task : tasks) {
                futures.add(pool.submit(() -> {
                    if (!gate.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new AssertionError("the start gate never opened");
                    }
                    return task.call();
                }));
            }
            gate.countDown();
            long end = System.nanoTime() + RUN_DEADLINE.toNanos();
            for (Future<Void> f : futures) {
                f.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).as("workers stopped").isTrue();
        }
    }

    private static boolean replayed(HttpResponse<byte[]> r) {
        return r.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent();
    }

    /** Status, body bytes, Content-Type and Location all equal. */
    private static void assertSameAnswer(HttpResponse<byte[]> actual, HttpResponse<byte[]> expected) {
        assertThat(actual.statusCode()).as(text(actual)).isEqualTo(expected.statusCode());
        assertThat(actual.body()).as("body bytes of %s", text(actual)).isEqualTo(expected.body());
        assertThat(actual.headers().firstValue("Content-Type")).isEqualTo(expected.headers().firstValue("Content-Type"));
        assertThat(actual.headers().firstValue("Location")).isEqualTo(expected.headers().firstValue("Location"));
    }

    private static JsonNode json(HttpResponse<byte[]> r) {
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + text(r), e);
        }
    }

    private static String text(HttpResponse<byte[]> r) {
        return r.statusCode() + " " + new String(r.body(), StandardCharsets.UTF_8);
    }

    private static HttpClient newClient() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** Requests to one server with its first account's key. */
    private record Client(HttpClient http, TestServer server) {

        HttpResponse<byte[]> pay(String key, String json) throws IOException, InterruptedException {
            HttpRequest request = HttpRequest.newBuilder(server.uri("/v1/payments"))
                    .timeout(DEADLINE)
                    .header("Authorization", "Bearer " + server.apiKey())
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString(json))
                    .build();
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        }

        /**
         * What a well-behaved client does: retries while the key is in use, honouring
         * {@code Retry-After} loosely (a short poll instead of a whole second), within a deadline.
         */
        HttpResponse<byte[]> payUntilAnswered(String key, String json, AtomicInteger inUseAnswers) {
            return await("an answer for " + key).atMost(DEADLINE)
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(25)).pollInSameThread()
                    .until(() -> pay(key, json), r -> {
                        if (r.statusCode() != 409) {
                            return true;
                        }
                        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
                        inUseAnswers.incrementAndGet();
                        return false;
                    });
        }
    }

    /** A started server on its own database, and direct access to that database. */
    private static final class Deployment implements AutoCloseable {
        final TestServer server;
        private final PostgresTestDatabase database;

        private Deployment(TestServer server, PostgresTestDatabase database) {
            this.server = server;
            this.database = database;
        }

        static Deployment start(Storage storage, UnaryOperator<TestServer.Builder> setup) {
            if (storage == Storage.H2) {
                return new Deployment(setup.apply(TestServer.h2()).start(), null);
            }
            PostgresTestDatabase db = PostgresTestDatabase.create();
            try {
                return new Deployment(setup.apply(TestServer.postgres(db)).start(), db);
            } catch (RuntimeException e) {
                db.close();
                throw e;
            }
        }

        Connection connect() throws SQLException {
            if (database != null) {
                return database.connect();
            }
            return DriverManager.getConnection(server.config().database().jdbcUrl(server.config().dataDir()), "", "");
        }

        long count(String sql) throws SQLException {
            try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        /** Idempotency key to the number of payments made with it. */
        Map<String, Long> paymentsPerKey() throws SQLException {
            Map<String, Long> counts = new HashMap<>();
            try (Connection c = connect(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT idempotency_key, COUNT(*) FROM payments GROUP BY idempotency_key")) {
                while (rs.next()) {
                    counts.put(rs.getString(1), rs.getLong(2));
                }
            }
            return counts;
        }

        /** Idempotency key to payment id (meaningful once {@link #paymentsPerKey()} is all ones). */
        Map<String, String> paymentIdsByKey() throws SQLException {
            Map<String, String> ids = new HashMap<>();
            try (Connection c = connect(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT idempotency_key, id FROM payments")) {
                while (rs.next()) {
                    ids.put(rs.getString(1), rs.getString(2));
                }
            }
            return ids;
        }

        @Override
        public void close() {
            try {
                server.close();
            } finally {
                if (database != null) {
                    database.close();
                }
            }
        }
    }
}

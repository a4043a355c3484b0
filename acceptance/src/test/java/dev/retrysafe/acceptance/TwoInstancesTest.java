package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
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
import org.junit.jupiter.api.Test;

/**
 * Two server instances sharing one PostgreSQL database, as in a deployment behind a load
 * balancer: the tries of one payment land on both, and still make one payment and one answer.
 */
class TwoInstancesTest {

    private static final int THREADS = 32;
    private static final int KEYS = 100;
    private static final int TRIES_PER_KEY = 4;
    private static final Duration BANK_LATENCY = Duration.ofMillis(20);
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Duration RUN_DEADLINE = Duration.ofSeconds(90);
    private static final String PAYMENT = "{\"amount\": 1250, \"currency\": \"usd\", \"description\": \"split\"}";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One answer and the instance (0 or 1) that gave it. */
    private record Answer(int instance, HttpResponse<byte[]> response) {
    }

    @Test
    void triesOfOnePaymentSplitAcrossTwoInstancesMakeOnePaymentAndOneAnswer() throws Exception {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
             TestServer first = TestServer.postgres(db).bankLatency(BANK_LATENCY).start();
             // started with the first's bootstrap keys, as two instances sharing one environment are;
             // the key of the first account is then valid on both (second.apiKey() is not used)
             TestServer second = TestServer.postgres(db).bankLatency(BANK_LATENCY)
                     .configure(c -> c.withBootstrapApiKeys(first.config().bootstrapApiKeys())).start();
             HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                     .connectTimeout(Duration.ofSeconds(5)).build()) {
            String apiKey = first.apiKey();
            List<Client> instances = List.of(new Client(http, first, apiKey), new Client(http, second, apiKey));

            // one account, seen by both instances
            HttpResponse<byte[]> made = instances.get(0).pay("warm-up", PAYMENT);
            assertThat(made.statusCode()).as(text(made)).isEqualTo(201);
            HttpResponse<byte[]> seen = instances.get(1).get(made.headers().firstValue("Location").orElseThrow());
            assertThat(seen.statusCode()).as("the first instance's payment read on the second: %s", text(seen))
                    .isEqualTo(200);
            assertThat(json(seen)).isEqualTo(json(made));
            HttpResponse<byte[]> replayedOnSecond = instances.get(1).pay("warm-up", PAYMENT);
            assertThat(replayedOnSecond.statusCode()).isEqualTo(201);
            assertThat(replayedOnSecond.body()).isEqualTo(made.body());
            assertThat(replayedOnSecond.headers().firstValue("Idempotent-Replayed")).hasValue("true");

            Map<String, List<Answer>> answers = new ConcurrentHashMap<>();
            List<Callable<Void>> tasks = new ArrayList<>();
            // the tries of one key are next to each other in the queue, so they run at the same
            // time, and they alternate between the instances (starting with either)
            for (int k = 0; k < KEYS; k++) {
                String key = "split-" + k;
                for (int t = 0; t < TRIES_PER_KEY; t++) {
                    int instance = (k + t) % 2;
                    tasks.add(() -> {
                        HttpResponse<byte[]> r = instances.get(instance).payUntilAnswered(key, PAYMENT);
                        answers.computeIfAbsent(key, x -> new CopyOnWriteArrayList<>()).add(new Answer(instance, r));
                        return null;
                    });
                }
            }
            runTogether(tasks);

            assertThat(answers).hasSize(KEYS);
            Map<String, String> answeredIds = new HashMap<>();
            int[] paymentsMadeBy = new int[2];
            answers.forEach((key, list) -> {
                assertThat(list).as(key).hasSize(TRIES_PER_KEY);
                assertThat(list.stream().map(Answer::instance).distinct()).as("%s went to both", key).hasSize(2);
                HttpResponse<byte[]> expected = list.get(0).response();
                for (Answer a : list) {
                    HttpResponse<byte[]> r = a.response();
                    assertThat(r.statusCode()).as("%s on instance %d: %s", key, a.instance(), text(r)).isEqualTo(201);
                    assertThat(r.body()).as("%s: body bytes on instance %d", key, a.instance()).isEqualTo(expected.body());
                    assertThat(r.headers().firstValue("Location")).isEqualTo(expected.headers().firstValue("Location"));
                    assertThat(r.headers().firstValue("Content-Type"))
                            .isEqualTo(expected.headers().firstValue("Content-Type"));
                }
                List<Answer> originals = list.stream().filter(a -> !replayed(a.response())).toList();
                assertThat(originals).as("%s: answers that ran the payment", key).hasSize(1);
                paymentsMadeBy[originals.get(0).instance()]++;
                answeredIds.put(key, json(expected).get("id").asText());
            });
            assertThat(paymentsMadeBy).as("payments made by each instance").doesNotContain(0);

            answeredIds.put("warm-up", json(made).get("id").asText());
            try (Connection c = db.connect()) {
                Map<String, Long> perKey = paymentsPerKey(c);
                assertThat(perKey).hasSize(KEYS + 1);
                assertThat(perKey.values()).as("payments per key").containsOnly(1L);
                assertThat(paymentIdsByKey(c)).isEqualTo(answeredIds);
                assertThat(count(c, "SELECT COUNT(*) FROM bank_charges")).isEqualTo(KEYS + 1);
            }
        }
    }

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

    private static Map<String, Long> paymentsPerKey(Connection c) throws SQLException {
        Map<String, Long> counts = new HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT idempotency_key, COUNT(*) FROM payments GROUP BY idempotency_key")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }

    private static Map<String, String> paymentIdsByKey(Connection c) throws SQLException {
        Map<String, String> ids = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT idempotency_key, id FROM payments")) {
            while (rs.next()) {
                ids.put(rs.getString(1), rs.getString(2));
            }
        }
        return ids;
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean replayed(HttpResponse<byte[]> r) {
        return r.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent();
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

    /** Requests to one instance with one API key. */
    private record Client(HttpClient http, TestServer server, String apiKey) {

        HttpResponse<byte[]> pay(String key, String json) throws IOException, InterruptedException {
            HttpRequest request = HttpRequest.newBuilder(server.uri("/v1/payments"))
                    .timeout(DEADLINE)
                    .header("Authorization", "Bearer " + apiKey)
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString(json))
                    .build();
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        }

        HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
            HttpRequest request = HttpRequest.newBuilder(server.uri(path)).timeout(DEADLINE)
                    .header("Authorization", "Bearer " + apiKey).GET().build();
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        }

        /** Retries while the key is in use ({@code Retry-After} honoured loosely), within a deadline. */
        HttpResponse<byte[]> payUntilAnswered(String key, String json) {
            return await("an answer for " + key + " from " + server.baseUri()).atMost(DEADLINE)
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(25)).pollInSameThread()
                    .until(() -> pay(key, json), r -> {
                        if (r.statusCode() != 409) {
                            return true;
                        }
                        assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
                        return false;
                    });
        }
    }
}

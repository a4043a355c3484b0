package dev.retrysafe.acceptance;

import static dev.retrysafe.acceptance.Answers.json;
import static dev.retrysafe.acceptance.Answers.replayed;
import static dev.retrysafe.acceptance.Answers.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.TestServer;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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

    /** One answer and the instance (0 or 1) that gave it. */
    private record Answer(int instance, HttpResponse<byte[]> response) {}

    @Test
    void triesOfOnePaymentSplitAcrossTwoInstancesMakeOnePaymentAndOneAnswer() throws Exception {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer first =
                        TestServer.postgres(db).bankLatency(BANK_LATENCY).start();
                // started with the first's bootstrap keys, as two instances sharing one environment are;
                // the key of the first account is then valid on both (second.apiKey() is not used)
                TestServer second = TestServer.postgres(db)
                        .bankLatency(BANK_LATENCY)
                        .configure(c -> c.withBootstrapApiKeys(first.config().bootstrapApiKeys()))
                        .start();
                HttpClient http = PaymentsClient.newHttpClient()) {
            String apiKey = first.apiKey();
            List<PaymentsClient> instances = List.of(
                    new PaymentsClient(http, first, apiKey, DEADLINE),
                    new PaymentsClient(http, second, apiKey, DEADLINE));

            // one account, seen by both instances
            HttpResponse<byte[]> made = instances.get(0).pay("warm-up", PAYMENT);
            assertThat(made.statusCode()).as(text(made)).isEqualTo(201);
            HttpResponse<byte[]> seen =
                    instances.get(1).get(made.headers().firstValue("Location").orElseThrow());
            assertThat(seen.statusCode())
                    .as("the first instance's payment read on the second: %s", text(seen))
                    .isEqualTo(200);
            assertThat(json(seen)).isEqualTo(json(made));
            HttpResponse<byte[]> replayedOnSecond = instances.get(1).pay("warm-up", PAYMENT);
            assertThat(replayedOnSecond.statusCode()).isEqualTo(201);
            assertThat(replayedOnSecond.body()).isEqualTo(made.body());
            assertThat(replayedOnSecond.headers().firstValue("Idempotent-Replayed"))
                    .hasValue("true");

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
                        answers.computeIfAbsent(key, x -> new CopyOnWriteArrayList<>())
                                .add(new Answer(instance, r));
                        return null;
                    });
                }
            }
            ParallelTasks.runTogether(tasks, THREADS, DEADLINE, RUN_DEADLINE);

            assertThat(answers).hasSize(KEYS);
            Map<String, String> answeredIds = new HashMap<>();
            int[] paymentsMadeBy = new int[2];
            answers.forEach((key, list) -> {
                assertThat(list).as(key).hasSize(TRIES_PER_KEY);
                assertThat(list.stream().map(Answer::instance).distinct())
                        .as("%s went to both", key)
                        .hasSize(2);
                HttpResponse<byte[]> expected = list.get(0).response();
                for (Answer a : list) {
                    HttpResponse<byte[]> r = a.response();
                    assertThat(r.statusCode())
                            .as("%s on instance %d: %s", key, a.instance(), text(r))
                            .isEqualTo(201);
                    assertThat(r.body())
                            .as("%s: body bytes on instance %d", key, a.instance())
                            .isEqualTo(expected.body());
                    assertThat(r.headers().firstValue("Location"))
                            .isEqualTo(expected.headers().firstValue("Location"));
                    assertThat(r.headers().firstValue("Content-Type"))
                            .isEqualTo(expected.headers().firstValue("Content-Type"));
                }
                List<Answer> originals =
                        list.stream().filter(a -> !replayed(a.response())).toList();
                assertThat(originals)
                        .as("%s: answers that ran the payment", key)
                        .hasSize(1);
                paymentsMadeBy[originals.get(0).instance()]++;
                answeredIds.put(key, json(expected).get("id").asText());
            });
            assertThat(paymentsMadeBy).as("payments made by each instance").doesNotContain(0);

            answeredIds.put("warm-up", json(made).get("id").asText());
            try (Connection c = db.connect()) {
                Map<String, Long> perKey = Queries.paymentsPerKey(c);
                assertThat(perKey).hasSize(KEYS + 1);
                assertThat(perKey.values()).as("payments per key").containsOnly(1L);
                assertThat(Queries.paymentIdsByKey(c)).isEqualTo(answeredIds);
                assertThat(Queries.count(c, "SELECT COUNT(*) FROM bank_charges"))
                        .isEqualTo(KEYS + 1);
            }
        }
    }
}

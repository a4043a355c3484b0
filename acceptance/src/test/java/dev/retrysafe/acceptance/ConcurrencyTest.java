package dev.retrysafe.acceptance;

import static dev.retrysafe.acceptance.Answers.assertSameAnswer;
import static dev.retrysafe.acceptance.Answers.json;
import static dev.retrysafe.acceptance.Answers.replayed;
import static dev.retrysafe.acceptance.Answers.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.bank.Bank;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
            if (first.compareAndSet(true, false) && !enoughInUse.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                holdRanOut.set(true);
            }
            Bank.Processing.SLEEP.process(chargeKey, latency);
        };

        try (Deployment d = Deployment.start(
                        storage, b -> b.bankLatency(Duration.ofMillis(20)).bankProcessing(holdFirst));
                HttpClient http = PaymentsClient.newHttpClient()) {
            PaymentsClient client = PaymentsClient.of(http, d.server, DEADLINE);
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
            ParallelTasks.runTogether(workers, THREADS, DEADLINE, RUN_DEADLINE);

            List<HttpResponse<byte[]>> all =
                    IntStream.range(0, requests).mapToObj(answers::get).toList();
            assertThat(all).doesNotContainNull();
            Map<Integer, Long> byStatus =
                    all.stream().collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
            assertThat(byStatus.keySet()).as("statuses %s", byStatus).containsOnly(201, 409);
            List<HttpResponse<byte[]>> successes =
                    all.stream().filter(r -> r.statusCode() / 100 == 2).toList();
            assertThat(successes.stream().filter(r -> !replayed(r)))
                    .as("answers that ran the payment")
                    .hasSize(1);
            assertThat(successes.size() - 1).as("replays").isGreaterThanOrEqualTo(sentAfterTheAnswer);
            HttpResponse<byte[]> answer = successes.get(0);
            for (HttpResponse<byte[]> r : successes) {
                assertSameAnswer(r, answer);
            }
            List<HttpResponse<byte[]>> inUse =
                    all.stream().filter(r -> r.statusCode() == 409).toList();
            assertThat(inUse).hasSizeGreaterThanOrEqualTo(inUseBeforeRelease);
            for (HttpResponse<byte[]> r : inUse) {
                assertThat(json(r).get("type").asText()).isEqualTo("/problems/idempotency-key-in-use");
                assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
            }

            assertThat(d.paymentsPerKey()).isEqualTo(Map.of("one-key", 1L));
            assertThat(d.paymentIdsByKey())
                    .isEqualTo(Map.of("one-key", json(answer).get("id").asText()));
            assertThat(d.count("SELECT COUNT(*) FROM bank_charges")).isEqualTo(1);
            assertThat(holdRanOut)
                    .as("64 tries were answered 409 while the first was at the bank")
                    .isFalse();
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
                HttpClient http = PaymentsClient.newHttpClient()) {
            PaymentsClient client = PaymentsClient.of(http, d.server, DEADLINE);
            Map<String, List<HttpResponse<byte[]>>> answers = new ConcurrentHashMap<>();
            AtomicInteger inUseAnswers = new AtomicInteger();
            List<Callable<Void>> tasks = new ArrayList<>();
            // the copies of one key are next to each other in the queue, so they run at the same time
            for (int k = 0; k < keys; k++) {
                String key = "key-" + k;
                for (int c = 0; c < copies; c++) {
                    tasks.add(() -> {
                        HttpResponse<byte[]> r = client.payUntilAnswered(key, PAYMENT, inUseAnswers);
                        answers.computeIfAbsent(key, x -> new CopyOnWriteArrayList<>())
                                .add(r);
                        return null;
                    });
                }
            }
            ParallelTasks.runTogether(tasks, THREADS, DEADLINE, RUN_DEADLINE);

            assertThat(answers).hasSize(keys);
            Map<String, String> answeredIds = new HashMap<>();
            answers.forEach((key, list) -> {
                assertThat(list).as(key).hasSize(copies);
                for (HttpResponse<byte[]> r : list) {
                    assertThat(r.statusCode()).as("%s: %s", key, text(r)).isEqualTo(201);
                    assertSameAnswer(r, list.get(0));
                }
                assertThat(list.stream().filter(r -> !replayed(r)))
                        .as("%s: answers that ran the payment", key)
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
}

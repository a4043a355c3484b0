package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.server.Api;
import dev.retrysafe.testkit.PostgresTestDatabase;
import dev.retrysafe.testkit.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34's acceptance for concurrency limits: three server processes on one PostgreSQL and one
 * Redis, a policy of {@value #LIMIT} requests in flight per API key, and {@value #REQUESTS} slow
 * payments sent at once over the three: never more than {@value #LIMIT} payment handlers run at
 * once (the bank of every instance counts them in Redis, {@link CountingBankServer}), and the rest
 * answer {@code 429 concurrency-limited} with {@code Retry-After}. Then an instance holding every
 * slot is killed with {@code kill -9}: its slots come back within the documented bound, one
 * {@link #LEASE} after its death, and not before its last renewal's lease could run out.
 */
class ConcurrencyLimitAcrossInstancesTest {

    private static final int INSTANCES = 3;
    private static final int LIMIT = 5;
    private static final int REQUESTS = 40;
    private static final String POLICY = "in-flight";
    /** Longer than it takes to send every request, so that all {@value #REQUESTS} meet the first five. */
    private static final Duration BANK_LATENCY = Duration.ofSeconds(3);
    /** Shorter than the bank's latency: the running payments' slots must be renewed to stay. */
    private static final Duration LEASE = Duration.ofSeconds(2);
    /** What the bound allows on top of the lease: the probes' own time on a busy machine. */
    private static final Duration PROBE_SLACK = Duration.ofMillis(750);

    private static final Duration START_DEADLINE = Duration.ofSeconds(120);
    private static final Duration RUN_DEADLINE = Duration.ofSeconds(60);
    private static final String PAYMENT = "{\"amount\":500,\"currency\":\"eur\"}";

    @TempDir
    Path dir;

    @Test
    void neverMoreThanTheLimitInFlightAcrossInstancesAndADeadInstancesSlotsComeBackWithinTheLease() throws Exception {
        String apiKey = "acc_cc_" + UUID.randomUUID().toString().replace("-", "");
        String prefix = "rs-cc-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        String counter = prefix + "bank:";
        List<@Nullable ServerProcess> processes = new ArrayList<>();
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
        try (RedisServerProcess redis = RedisServerProcess.start();
                PostgresTestDatabase db = PostgresTestDatabase.create();
                Counter running = new Counter(redis.uri(), counter)) {
            Path config = dir.resolve("retrysafe.yaml");
            Files.writeString(config, configuration(prefix), StandardCharsets.UTF_8);
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < INSTANCES; i++) {
                ports.add(ServerProcess.freePort());
                Map<String, String> settings = new HashMap<>();
                settings.put("PORT", Integer.toString(ports.get(i)));
                settings.put("RETRYSAFE_DATABASE_URL", db.jdbcUrl());
                settings.put("RETRYSAFE_DATABASE_USER", db.user());
                settings.put("RETRYSAFE_REDIS_URL", redis.uri());
                settings.put("RETRYSAFE_BOOTSTRAP_API_KEYS", apiKey);
                List<String> command = ServerProcess.javaMain(
                        CountingBankServer.class.getName(), config.toString(), redis.uri(), counter);
                processes.add(
                        ServerProcess.start("instance-" + i, command, ServerProcess.environment(settings), dir, dir));
                if (i == 0) {
                    // the first migrates the database and makes the key; the others find both
                    processes.get(0).awaitReady(ports.get(0), START_DEADLINE);
                }
            }
            for (int i = 1; i < INSTANCES; i++) {
                processes.get(i).awaitReady(ports.get(i), START_DEADLINE);
            }
            List<Api> apis = ports.stream()
                    .map(port -> new Api(ServerProcess.base(port), apiKey))
                    .toList();

            // when: 40 slow payments at once, spread over the three instances
            List<Api> targets = new ArrayList<>();
            for (int r = 0; r < REQUESTS; r++) {
                targets.add(apis.get(r % INSTANCES));
            }
            List<Api.Answer> answers = together(clients, targets);

            // then: five ran, never more at once, and the others were refused naming the policy
            Map<Integer, Long> statuses =
                    answers.stream().collect(Collectors.groupingBy(Api.Answer::status, Collectors.counting()));
            assertThat(statuses).as("statuses").isEqualTo(Map.of(201, (long) LIMIT, 429, (long) (REQUESTS - LIMIT)));
            assertThat(running.most())
                    .as("payment handlers running at once, most")
                    .isEqualTo(LIMIT);
            assertThat(running.now()).as("running after every answer").isZero();
            for (Api.Answer refused : answers) {
                if (refused.status() != 429) {
                    continue;
                }
                assertThat(refused.header("Retry-After")).isEqualTo("1");
                assertThat(refused.contentType()).startsWith("application/problem+json");
                assertThat(refused.body().path("type").asText()).isEqualTo("/problems/concurrency-limited");
                assertThat(refused.body().path("policy").asText()).isEqualTo(POLICY);
                assertThat(refused.body().path("limit").asInt()).isEqualTo(LIMIT);
            }

            // given: the third instance holds every slot, with payments running longer than the lease
            Api doomed = apis.get(2);
            List<Future<Api.Answer>> held = new ArrayList<>();
            for (int r = 0; r < LIMIT; r++) {
                held.add(clients.submit(() -> doomed.post("/v1/payments", PAYMENT)));
            }
            await("the third instance's " + LIMIT + " payments in the bank")
                    .atMost(RUN_DEADLINE)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> running.now() == LIMIT);
            assertThat(apis.get(0).get("/v1/payments").status())
                    .as("another instance while the third holds every slot")
                    .isEqualTo(429);

            // when: kill -9, in the middle of its payments
            long killedAt = System.nanoTime();
            processes.get(2).kill9();
            running.reset(); // the dead instance never counts its payments out
            Api.Answer firstAfterKill = apis.get(0).get("/v1/payments");
            long firstProbeAnswered = System.nanoTime();

            // then: the slots stay taken until the lease runs out, and are back within it
            await("a slot back after the kill")
                    .atMost(LEASE.plus(PROBE_SLACK).plusSeconds(5))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> apis.get(0).get("/v1/payments").status() == 200);
            Duration back = Duration.ofNanos(System.nanoTime() - killedAt);
            System.out.printf(
                    "concurrency slots of the killed instance back %d ms after kill -9 (lease %d ms)%n",
                    back.toMillis(), LEASE.toMillis());
            if (Duration.ofNanos(firstProbeAnswered - killedAt).compareTo(LEASE.dividedBy(3)) < 0) {
                // its last renewal was at most lease/3 + a tick before the kill
                assertThat(firstAfterKill.status())
                        .as("right after the kill the dead instance's slots are still taken")
                        .isEqualTo(429);
            }
            assertThat(back).as("slots back within the lease").isLessThanOrEqualTo(LEASE.plus(PROBE_SLACK));
            for (Future<Api.Answer> lost : held) {
                lost.cancel(true); // their connection died with the instance
            }

            // and: all five are back, and the limit still holds on the two survivors
            List<Api> survivors = new ArrayList<>();
            for (int r = 0; r <= LIMIT; r++) {
                survivors.add(apis.get(r % 2));
            }
            List<Api.Answer> after = together(clients, survivors);
            assertThat(after.stream().filter(a -> a.status() == 201).count())
                    .as("payments admitted after the dead instance's slots came back")
                    .isEqualTo(LIMIT);
            assertThat(after.stream().filter(a -> a.status() == 429).count()).isEqualTo(1);
            assertThat(running.most()).isEqualTo(LIMIT);
        } catch (Throwable e) {
            ServerProcess.attachLogs(e, processes);
            throw e;
        } finally {
            clients.shutdownNow();
            for (ServerProcess p : processes) {
                if (p != null) {
                    p.close();
                }
            }
        }
    }

    /** Sends one payment per target, all released by one gate; every answer, in order. */
    private static List<Api.Answer> together(ExecutorService clients, List<Api> targets) throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<Api.Answer>> sent = new ArrayList<>();
        for (Api target : targets) {
            sent.add(clients.submit(() -> {
                if (!gate.await(RUN_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                    throw new AssertionError("the gate never opened");
                }
                return target.post("/v1/payments", PAYMENT);
            }));
        }
        gate.countDown();
        List<Api.Answer> answers = new ArrayList<>();
        for (Future<Api.Answer> answer : sent) {
            answers.add(answer.get(RUN_DEADLINE.toSeconds(), TimeUnit.SECONDS));
        }
        return answers;
    }

    private static String configuration(String prefix) {
        return """
                host: 127.0.0.1
                bank:
                  latency: %dms
                rate_limits:
                  store: redis
                  redis_timeout: 2s
                  redis_key_prefix: "%s"
                  policies:
                    - name: %s
                      kind: concurrency
                      scope: api_key
                      limit: %d
                      lease: %ds
                      fail: closed
                shutdown:
                  timeout: 2s
                """.formatted(BANK_LATENCY.toMillis(), prefix, POLICY, LIMIT, LEASE.toSeconds());
    }

    /** The instances' shared count of payment handlers running, read from Redis. */
    private static final class Counter implements AutoCloseable {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final RedisCommands<String, String> redis;
        private final String prefix;

        Counter(String uri, String prefix) {
            this.client = RedisClient.create(uri);
            this.connection = client.connect();
            this.redis = connection.sync();
            this.prefix = prefix;
        }

        long now() {
            return number(() -> redis.get(prefix + "running"));
        }

        long most() {
            return number(() -> redis.get(prefix + "most"));
        }

        void reset() {
            redis.del(prefix + "running", prefix + "most");
        }

        private static long number(Supplier<@Nullable String> value) {
            String text = value.get();
            return text == null ? 0 : Long.parseLong(text);
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}

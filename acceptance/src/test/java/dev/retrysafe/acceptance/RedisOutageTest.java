package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.acceptance.BudgetHeaders.Allowance;
import dev.retrysafe.acceptance.BudgetHeaders.Budget;
import dev.retrysafe.acceptance.RequestLoop.Outcome;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.RedisConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.RedisServerProcess;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redis killed in the middle of a run and started again on the same port (or hung and let go
 * on), under two servers that keep their rate-limit counters in it: one whose policy fails open,
 * one whose policy fails closed (each server on its own H2 database; Redis is what they share).
 * While Redis is down the fail-open server answers, uncounted and without waiting on Redis, the
 * fail-closed one refuses with {@code 503} and {@code Retry-After}, and both stay ready; once
 * Redis is back both count and refuse again, without being restarted.
 */
class RedisOutageTest {

    /** Where the test is: the request loop tags every answer with the phase it was sent and answered in. */
    private enum Phase {
        BEFORE,
        OUTAGE,
        RECOVERY
    }

    private static final String PATH = "/v1/payments";
    private static final String OPEN = "open";
    private static final String CLOSED = "closed";
    private static final long QUOTA = 5;
    /** One unit comes back every 12 minutes: none does during the test. */
    private static final Duration WINDOW = Duration.ofHours(1);

    private static final Allowance ALLOWANCE = new Allowance(QUOTA, WINDOW.toSeconds());
    /**
     * {@code rate_limits.redis_timeout}: 500 ms rather than the shipped 100 ms. With 100 ms, a
     * decision made while Redis was up went uncounted now and then when the machine was loaded
     * (a starved JVM missed the deadline: fail-open working as documented, but the test expected
     * it counted). The outage behaviour under test does not depend on the value.
     */
    private static final Duration REDIS_TIMEOUT = Duration.ofMillis(500);
    /**
     * No answer may take this long while Redis is down or coming back. Far above the Redis timeout
     * on purpose: this machine is small and busy, and the point is that nobody waits on Redis
     * (a client's own timeout is seconds), not a latency figure.
     */
    private static final Duration SLOW = Duration.ofSeconds(2);
    /** Answers of each loop client wholly within the outage before Redis is started again. */
    private static final long LOOP_ANSWERS_IN_OUTAGE = 20;

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Duration RECOVERY_DEADLINE = Duration.ofSeconds(30);

    /** One request: its answer and when it was sent and answered. */
    private record Timed(Instant sentAt, Instant answeredAt, long nanos, Api.Answer answer) {
        Duration took() {
            return Duration.ofNanos(nanos);
        }
    }

    private Set<Thread> redisClientThreadsBefore = Set.of();
    private RedisServerProcess redis;
    private TestServer failOpen;
    private TestServer failClosed;

    @BeforeEach
    void startRedisAndServers() {
        redisClientThreadsBefore = RedisClientThreads.alive();
        redis = RedisServerProcess.start();
        failOpen = server(OPEN, FailMode.OPEN);
        failClosed = server(CLOSED, FailMode.CLOSED);
    }

    @AfterEach
    void stopServersAndRedis() {
        // every step runs even if one before it throws: the redis-server never outlives the test
        try {
            if (failOpen != null) {
                failOpen.close();
            }
        } finally {
            try {
                if (failClosed != null) {
                    failClosed.close();
                }
            } finally {
                if (redis != null) {
                    redis.close();
                }
            }
        }
        RedisClientThreads.assertNoneLeftSince(redisClientThreadsBefore);
    }

    @Test
    void failOpenAnswersUncountedAndFailClosedRefusesWhileRedisIsDownThenBothCountAgain() throws Exception {
        Api open = Api.of(failOpen);
        Api closed = Api.of(failClosed);

        // given: both servers count in Redis, and the fail-open one has refused its key
        for (long left = QUOTA - 1; left >= 0; left--) {
            assertThat(counted(open, OPEN, 200).remaining()).isEqualTo(left);
        }
        counted(open, OPEN, 429);
        assertThat(counted(closed, CLOSED, 200).remaining()).isEqualTo(QUOTA - 1);
        List<Api> probes = List.of(new Api(failOpen.baseUri(), null), new Api(failClosed.baseUri(), null));
        for (Api probe : probes) {
            assertReadiness(probe.get("/ready"), "ready", "ok");
        }

        // and: steady traffic of the second account of each server through the whole run
        AtomicReference<Phase> phase = new AtomicReference<>(Phase.BEFORE);
        Api openLoad = new Api(failOpen.baseUri(), failOpen.otherApiKey());
        Api closedLoad = new Api(failClosed.baseUri(), failClosed.otherApiKey());
        List<Supplier<Api.Answer>> traffic = List.of(() -> openLoad.get(PATH), () -> closedLoad.get(PATH));
        try (RequestLoop<Phase> loop = RequestLoop.start(traffic, phase::get, DEADLINE)) {

            // when: Redis dies
            redis.kill();
            phase.set(Phase.OUTAGE);

            // then: the fail-open server lets the refused key through, uncounted, many times over
            List<Duration> took = new ArrayList<>();
            for (int i = 0; i < 3 * QUOTA; i++) {
                Timed t = send(open);
                assertThat(t.answer().status())
                        .as("fail-open request %d during the outage", i)
                        .isEqualTo(200);
                assertUncounted(t.answer(), OPEN);
                took.add(t.took());
            }
            // and: the fail-closed server refuses every request, saying when to come back
            for (int i = 0; i < 2 * QUOTA; i++) {
                Timed t = send(closed);
                assertUnavailable(t.answer());
                took.add(t.took());
            }
            assertNobodyWaitedOnRedis(took);
            // and: both stay ready, reporting Redis: it holds only counters that every instance
            // shares, so an unready answer would take every instance out of the load balancer at once
            for (Api probe : probes) {
                Api.Answer ready = probe.get("/ready");
                assertReadiness(ready, "degraded", "unreachable");
                assertThat(ready.header("Retry-After")).isNull();
                assertThat(probe.get("/health").status())
                        .as("/health with Redis down")
                        .isEqualTo(200);
            }
            await("the request loop's answers during the outage")
                    .atMost(DEADLINE)
                    .until(() -> loop.count(o -> o.client() == 0 && o.within(Phase.OUTAGE)) >= LOOP_ANSWERS_IN_OUTAGE
                            && loop.count(o -> o.client() == 1 && o.within(Phase.OUTAGE)) >= LOOP_ANSWERS_IN_OUTAGE);

            // when: Redis is started again on the same port (empty: nothing was persisted)
            phase.set(Phase.RECOVERY);
            redis.restart();

            // then: both servers count again, with no restart, and refuse once the quota is spent
            Timed openCounted = awaitCounted(open, OPEN);
            Timed closedCounted = awaitCounted(closed, CLOSED);
            assertThat(List.of(openCounted, closedCounted))
                    .as("first counted answers from the restarted, empty Redis")
                    .allSatisfy(t -> assertThat(t.answer().status()).isEqualTo(200));
            countsAndRefusesAgain(open, OPEN, openCounted);
            countsAndRefusesAgain(closed, CLOSED, closedCounted);
            for (Api probe : probes) {
                assertReadiness(probe.get("/ready"), "ready", "ok");
            }

            List<Outcome<Phase>> outcomes = loop.stop();
            assertLoopAnswers(outcomes, 0, OPEN);
            assertLoopAnswers(outcomes, 1, CLOSED);
        }
    }

    /**
     * A Redis that hangs (stopped, its connections open) rather than refusing, so the timeout
     * matters: a request waits for Redis at most that long, and once the circuit breaker opens
     * not at all; once Redis goes on, both servers count and refuse again by themselves.
     */
    @Test
    void hungRedisHoldsNoRequestLongAndLimitsComeBackOnceItGoesOn() {
        Api open = Api.of(failOpen);
        Api closed = Api.of(failClosed);
        assertThat(counted(open, OPEN, 200).remaining()).isEqualTo(QUOTA - 1);
        assertThat(counted(closed, CLOSED, 200).remaining()).isEqualTo(QUOTA - 1);

        redis.freeze();

        List<Duration> took = new ArrayList<>();
        for (int i = 0; i < 4 * QUOTA; i++) {
            Timed t = send(open);
            assertThat(t.answer().status())
                    .as("fail-open request %d, Redis hung", i)
                    .isEqualTo(200);
            assertUncounted(t.answer(), OPEN);
            took.add(t.took());
        }
        for (int i = 0; i < 4 * QUOTA; i++) {
            Timed t = send(closed);
            assertUnavailable(t.answer());
            took.add(t.took());
        }
        assertNobodyWaitedOnRedis(took);

        redis.thaw();

        // calls that timed out while Redis was stopped may still run once it goes on, and spend
        // units nobody was told about: the budget after recovery is not known exactly, only that
        // it is counted and runs out
        countsAndRefusesAgain(open, OPEN, awaitCounted(open, OPEN));
        countsAndRefusesAgain(closed, CLOSED, awaitCounted(closed, CLOSED));
    }

    private TestServer server(String policyName, FailMode failMode) {
        Policy policy = Policy.builder(policyName)
                .scope(Scope.apiKey())
                .limit(QUOTA, WINDOW)
                .failMode(failMode)
                .build();
        RateLimitConfig limits = new RateLimitConfig(
                true,
                RateLimitConfig.Store.REDIS,
                List.of(policy),
                ServerConfig.defaults().rateLimits().plans(),
                Duration.ZERO,
                REDIS_TIMEOUT,
                "rs-test:",
                true,
                List.of());
        RedisConfig shared = new RedisConfig(URI.create(redis.uri()));
        return TestServer.h2()
                .rateLimits(limits)
                .configure(c -> c.withRedis(shared))
                .start();
    }

    private static Timed send(Api api) {
        Instant sentAt = Instant.now();
        long start = System.nanoTime();
        Api.Answer answer = api.get(PATH);
        long nanos = System.nanoTime() - start;
        return new Timed(sentAt, Instant.now(), nanos, answer);
    }

    /** Sends a request that must be answered {@code status} with a counted, well-formed budget. */
    private static Budget counted(Api api, String policy, int status) {
        Timed t = send(api);
        return checkCounted(t, policy, status);
    }

    private static Budget checkCounted(Timed t, String policy, int status) {
        Api.Answer answer = t.answer();
        assertThat(answer.status()).as("%s: %s", policy, answer.raw().body()).isEqualTo(status);
        assertThat(BudgetHeaders.allowances(answer)).containsExactly(Map.entry(policy, ALLOWANCE));
        Budget budget = BudgetHeaders.known(answer, policy, t.sentAt(), t.answeredAt());
        if (status == 429) {
            assertThat(budget.remaining()).as("r of a 429").isZero();
            assertThat(BudgetHeaders.retryAfter(answer))
                    .as("Retry-After of a 429: the next unit is at most %d s away", WINDOW.toSeconds() / QUOTA)
                    .isLessThanOrEqualTo(WINDOW.toSeconds() / QUOTA);
            assertThat(answer.body().path("type").asText()).isEqualTo("/problems/rate-limited");
            assertThat(answer.body().path("policy").asText()).isEqualTo(policy);
        } else {
            assertThat(answer.header("Retry-After"))
                    .as("Retry-After of a %d", status)
                    .isNull();
        }
        return budget;
    }

    /** A request let through uncounted: the policy is shown, its budget is not, and nobody is told to wait. */
    private static void assertUncounted(Api.Answer answer, String policy) {
        BudgetHeaders.unknown(answer, policy, ALLOWANCE);
        assertThat(answer.header("Retry-After"))
                .as("Retry-After of an uncounted %d", answer.status())
                .isNull();
    }

    /** The fail-closed refusal: 503, Retry-After, the rate-limit-unavailable problem, no budget. */
    private static void assertUnavailable(Api.Answer answer) {
        assertThat(answer.status())
                .as("fail-closed during the outage: %s", answer.raw().body())
                .isEqualTo(503);
        BudgetHeaders.unknown(answer, CLOSED, ALLOWANCE);
        long retryAfter = BudgetHeaders.retryAfter(answer);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.body().path("type").asText()).isEqualTo("/problems/rate-limit-unavailable");
        assertThat(answer.body().path("status").asInt()).isEqualTo(503);
        assertThat(answer.body().path("retry_after").asLong()).isEqualTo(retryAfter);
    }

    /**
     * Every answer came back well within {@link #SLOW}, and typically within the Redis timeout:
     * with Redis refusing connections or the circuit breaker open, no request waits for it.
     */
    private static void assertNobodyWaitedOnRedis(List<Duration> took) {
        assertThat(took)
                .as("answers during the outage")
                .allSatisfy(d -> assertThat(d).isLessThan(SLOW));
        List<Duration> sorted = took.stream().sorted().toList();
        assertThat(sorted.get(sorted.size() / 2))
                .as("median answer time during the outage, of %s", sorted)
                .isLessThan(REDIS_TIMEOUT);
    }

    /** Polls (within {@link #RECOVERY_DEADLINE}) until a request is counted again; returns it. */
    private static Timed awaitCounted(Api api, String policy) {
        return await(policy + " counting again after Redis came back")
                .atMost(RECOVERY_DEADLINE)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> send(api), t -> t.answer().header("RateLimit") != null);
    }

    /**
     * From the counted answer {@code first} on, spends what is left of the quota one unit at a
     * time and checks that the next request is refused.
     */
    private static void countsAndRefusesAgain(Api api, String policy, Timed first) {
        if (first.answer().status() == 429) {
            checkCounted(first, policy, 429);
            return;
        }
        long left = checkCounted(first, policy, 200).remaining();
        while (left > 0) {
            left--;
            assertThat(counted(api, policy, 200).remaining())
                    .as("%s after recovery", policy)
                    .isEqualTo(left);
        }
        counted(api, policy, 429);
    }

    /** The request loop's answers from one server, judged by the phase each was given in. */
    private static void assertLoopAnswers(List<Outcome<Phase>> outcomes, int client, String policy) {
        List<Outcome<Phase>> mine =
                outcomes.stream().filter(o -> o.client() == client).toList();
        for (Outcome<Phase> o : mine) {
            Api.Answer answer = o.answer();
            String what = policy + " loop answer " + o.sentIn() + "->" + o.answeredIn() + ", " + answer.status();
            assertThat(o.took()).as("%s: time", what).isLessThan(SLOW);
            assertThat(BudgetHeaders.allowances(answer)).as(what).containsExactly(Map.entry(policy, ALLOWANCE));
            Map<String, Budget> budgets = BudgetHeaders.budgets(answer);
            switch (answer.status()) {
                case 200 -> assertThat(answer.header("Retry-After")).as(what).isNull();
                case 429 -> {
                    assertThat(budgets.get(policy)).as("%s: RateLimit", what).isNotNull();
                    assertThat(budgets.get(policy).remaining()).as(what).isZero();
                    BudgetHeaders.retryAfter(answer);
                }
                case 503 -> {
                    assertThat(policy).as("%s from the fail-open server", what).isEqualTo(CLOSED);
                    assertUnavailable(answer);
                }
                default -> throw new AssertionError(what + ": " + answer.raw().body());
            }
            if (o.within(Phase.OUTAGE)) {
                if (policy.equals(OPEN)) {
                    assertThat(answer.status()).as(what).isEqualTo(200);
                    assertUncounted(answer, OPEN);
                } else {
                    assertUnavailable(answer);
                }
            }
        }
        assertThat(mine.stream()
                        .filter(o -> o.within(Phase.RECOVERY))
                        .map(o -> o.answer().header("RateLimit")))
                .as("%s loop: counted again after Redis came back", policy)
                .anyMatch(h -> h != null);
    }

    private static void assertReadiness(Api.Answer ready, String status, String redisCheck) {
        assertThat(ready.status()).as("/ready: %s", ready.raw().body()).isEqualTo(200);
        assertThat(ready.body().path("status").asText())
                .as("/ready: %s", ready.raw().body())
                .isEqualTo(status);
        assertThat(ready.body().path("checks").path("database").asText()).isEqualTo("ok");
        assertThat(ready.body().path("checks").path("redis").asText()).isEqualTo(redisCheck);
    }
}

package dev.retrysafe.server.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.RedisConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.OutageProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code fail: local} on two server instances sharing the test Redis, each through its own
 * {@link OutageProxy} (the machine's Redis is never stopped: the proxies cut it off), with
 * {@code rate_limits.fallback_instances: 2}. The policy counts unauthenticated requests by client
 * address, so both instances count the same key (127.0.0.1), 10 per day in a fixed window; each
 * admitted request is answered 401 (authentication comes after the rate limit), each refused one
 * 429. The bound (docs/rate-limits.md, "When Redis is unreachable"): a window admits at most
 * what Redis counted in it plus 2 x floor(10 / 2).
 */
class LocalFallbackApiTest {

    private static final String REDIS =
            System.getenv().getOrDefault("RETRYSAFE_TEST_REDIS_URL", "redis://127.0.0.1:6379");
    private static final long QUOTA = 10;
    private static final int INSTANCES = 2;
    private static final Duration RECOVERY_BOUND = Duration.ofSeconds(10);

    private final String prefix = "rs-test:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private OutageProxy proxyA;
    private OutageProxy proxyB;
    private TestServer a;
    private TestServer b;

    @BeforeEach
    void twoInstances() {
        Policy byAddress = Policy.builder("local")
                .scope(Scope.ip())
                .algorithm(Algorithm.FIXED_WINDOW)
                .limit(QUOTA, Duration.ofDays(1))
                .failMode(FailMode.LOCAL)
                .build();
        int redisPort = URI.create(REDIS).getPort();
        proxyA = OutageProxy.to(redisPort);
        proxyB = OutageProxy.to(redisPort);
        a = instance(byAddress, proxyA);
        b = instance(byAddress, proxyB);
    }

    private TestServer instance(Policy policy, OutageProxy proxy) {
        RateLimitConfig defaults = ServerConfig.defaults().rateLimits();
        RateLimitConfig limits = new RateLimitConfig(
                        true,
                        RateLimitConfig.Store.REDIS,
                        List.of(policy),
                        defaults.plans(),
                        Duration.ZERO,
                        Duration.ofMillis(500),
                        prefix,
                        true,
                        List.of())
                .withFallbackInstances(INSTANCES);
        return TestServer.h2()
                .rateLimits(limits)
                .configure(c -> c.withRedis(new RedisConfig(URI.create("redis://127.0.0.1:" + proxy.port()))))
                .start();
    }

    @AfterEach
    void closeAll() throws Exception {
        try {
            for (AutoCloseable c : new AutoCloseable[] {a, b, proxyA, proxyB}) {
                if (c != null) {
                    c.close();
                }
            }
        } finally {
            deleteKeys();
        }
    }

    @Test
    void admittedRequestsStayWithinTheBoundWhileRedisIsCutOffAndCountsAreExactAgainWithinTenSeconds() {
        Api anonymousA = new Api(a.baseUri(), null);
        Api anonymousB = new Api(b.baseUri(), null);

        // Redis reachable: 3 + 2, counted once for both instances
        assertThat(admitted(anonymousA, 3)).isEqualTo(3);
        Api.Answer shared = anonymousB.get("/v1/payments");
        assertThat(shared.status()).isEqualTo(401);
        assertThat(shared.header("RateLimit")).contains("r=6");
        assertThat(admitted(anonymousB, 1)).isEqualTo(1);
        long countedByRedis = 5;

        // cut off: each instance admits its share, floor(10 / 2) = 5, and refuses the rest
        proxyA.cut();
        proxyB.cut();
        long localA = admitted(anonymousA, 20);
        long localB = admitted(anonymousB, 20);
        assertThat(localA).isEqualTo(QUOTA / INSTANCES);
        assertThat(localB).isEqualTo(QUOTA / INSTANCES);
        Api.Answer refused = anonymousA.get("/v1/payments");
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.header("RateLimit-Policy")).contains("q=5");
        assertThat(countedByRedis + localA + localB).isLessThanOrEqualTo(bound(countedByRedis));
        assertThat(anonymousA.get("/metrics").raw().body())
                .contains("retrysafe_ratelimit_decisions_total{outcome=\"local_fallback\",policy=\"local\"} 5")
                .contains("retrysafe_ratelimit_redis_breaker_open 1");

        // Redis back: within 10 s both instances count in Redis again (the shared quota, q=10)
        proxyA.restore();
        proxyB.restore();
        long restored = MonotonicClock.nanoTime();
        long[] probes = {0};
        await().atMost(RECOVERY_BOUND).pollInterval(Duration.ofMillis(100)).until(() -> {
            probes[0] += 2;
            return sharedAgain(anonymousA.get("/v1/payments")) & sharedAgain(anonymousB.get("/v1/payments"));
        });
        Duration recovery = Duration.ofNanos(MonotonicClock.nanoTime() - restored);
        System.out.println("LocalFallbackApiTest: both instances counting in Redis " + recovery.toMillis()
                + " ms after it returned (" + probes[0] + " probes)");

        // exact and shared: every answer, from either instance, says one unit fewer than the last
        Api.Answer last = anonymousA.get("/v1/payments");
        long remaining = remaining(last);
        long redisAdmitted = QUOTA - remaining; // what Redis holds now: before the cut + probes + this one
        int turn = 0;
        while (remaining > 0) {
            Api.Answer answer = (turn++ % 2 == 0 ? anonymousB : anonymousA).get("/v1/payments");
            assertThat(answer.status()).isEqualTo(401);
            assertThat(remaining(answer)).isEqualTo(--remaining);
            redisAdmitted++;
        }
        assertThat(anonymousB.get("/v1/payments").status()).isEqualTo(429);
        assertThat(anonymousA.get("/v1/payments").status()).isEqualTo(429);
        assertThat(redisAdmitted).isEqualTo(QUOTA);
        assertThat(redisAdmitted + localA + localB).isLessThanOrEqualTo(bound(redisAdmitted));
        String metrics = anonymousB.get("/metrics").raw().body();
        assertThat(metrics)
                .contains("retrysafe_ratelimit_redis_breaker_open 0")
                .contains("retrysafe_ratelimit_fallback_instances 2")
                .contains("# TYPE retrysafe_ratelimit_redis_seconds histogram")
                .contains("retrysafe_ratelimit_redis_seconds_bucket{le=\"0.001\"}")
                .containsPattern("retrysafe_ratelimit_redis_seconds_bucket\\{le=\"\\+Inf\"} [1-9]")
                .containsPattern("retrysafe_ratelimit_redis_seconds_count [1-9]");
    }

    /** The documented bound on one window: Redis's count (at most the quota) plus each instance's share. */
    private static long bound(long countedByRedis) {
        return Math.min(countedByRedis, QUOTA) + INSTANCES * Math.max(1, QUOTA / INSTANCES);
    }

    /** Whether the answer was counted in Redis: the shared quota, not the local share. */
    private static boolean sharedAgain(Api.Answer answer) {
        String policy = answer.header("RateLimit-Policy");
        return policy != null && policy.contains("q=" + QUOTA);
    }

    private static long remaining(Api.Answer answer) {
        return Long.parseLong(answer.header("X-RateLimit-Remaining"));
    }

    private static long admitted(Api api, int requests) {
        long admitted = 0;
        for (int i = 0; i < requests; i++) {
            int status = api.get("/v1/payments").status();
            assertThat(status).isIn(401, 429);
            if (status == 401) {
                admitted++;
            }
        }
        return admitted;
    }

    private void deleteKeys() {
        RedisClient client = RedisClient.create(REDIS);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            List<String> keys = c.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(String[]::new));
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}

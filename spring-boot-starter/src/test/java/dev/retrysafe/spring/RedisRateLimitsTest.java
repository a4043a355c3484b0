package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.spring.app.TestApp;
import dev.retrysafe.spring.internal.RetrysafeHealthIndicator;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Rate limits on Redis through the application's own Spring Data Redis: two application contexts
 * (two instances) configured only by {@code spring.data.redis.*} share one budget in the real
 * Redis at 127.0.0.1:6379 (database 3, a key prefix of this test's own, deleted after), and with
 * that Redis unreachable a fail-open policy lets requests through, a fail-closed one answers a
 * {@code 503} problem, and health says so.
 */
class RedisRateLimitsTest {

    private static final int REDIS_PORT = 6379;
    private static final int DATABASE = 3;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String prefix = "retrysafe:starter-test:" + UUID.randomUUID() + ":";
    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void redisAnswers() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), REDIS_PORT), 2000);
        } catch (IOException e) {
            fail("no Redis on 127.0.0.1:" + REDIS_PORT + " (./test starts it; or redis-server --daemonize yes)", e);
        }
    }

    @AfterEach
    void stopAndClean() {
        instances.forEach(ConfigurableApplicationContext::close);
        http.close();
        try (RedisClient client =
                        RedisClient.create(RedisURI.create("redis://127.0.0.1:" + REDIS_PORT + "/" + DATABASE));
                StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> keys = keys(connection.sync());
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
    }

    @Test
    void twoInstancesOnTheApplicationsRedisShareOneBudget() throws Exception {
        ConfigurableApplicationContext a = start(REDIS_PORT);
        ConfigurableApplicationContext b = start(REDIS_PORT);
        assertThat(a.getBean(RateLimitStore.class).getClass().getSimpleName()).isEqualTo("RedisRateLimitStore");
        assertThat(a.getBean(LettuceConnectionFactory.class).getNativeClient())
                .as("the store borrowed the factory's client, which the factory made at start")
                .isNotNull();
        String account = "acct_" + UUID.randomUUID();

        HttpResponse<String> first = read(a, account);
        HttpResponse<String> second = read(b, account);
        HttpResponse<String> third = read(a, account);
        HttpResponse<String> refused = read(b, account);

        assertThat(List.of(first, second, third))
                .allSatisfy(answer -> assertThat(answer.statusCode()).isEqualTo(200));
        assertThat(first.headers().firstValue("RateLimit"))
                .hasValueSatisfying(v -> assertThat(v).contains("r=2"));
        assertThat(second.headers().firstValue("RateLimit"))
                .as("the other instance saw the first's spending")
                .hasValueSatisfying(v -> assertThat(v).contains("r=1"));
        assertThat(third.headers().firstValue("X-RateLimit-Remaining")).contains("0");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()))
                .isGreaterThanOrEqualTo(1);
        JsonNode problem = JSON.readTree(refused.body());
        assertThat(problem.path("policy").asString()).isEqualTo("reads");
        assertThat(problem.path("type").asString()).isEqualTo("/problems/rate-limited");

        try (RedisClient client =
                        RedisClient.create(RedisURI.create("redis://127.0.0.1:" + REDIS_PORT + "/" + DATABASE));
                StatefulRedisConnection<String, String> connection = client.connect()) {
            assertThat(keys(connection.sync()))
                    .as("the counters are in spring.data.redis.database, under the prefix")
                    .isNotEmpty();
        }

        JsonNode health = health(a, 200);
        assertThat(health.path("status").asString()).isEqualTo("UP");
        assertThat(health.path("components")
                        .path("retrysafe")
                        .path("details")
                        .path("redis")
                        .asString())
                .isEqualTo("ok");
        assertThat(health.path("components").path("redis").path("status").asString())
                .isEqualTo("UP");
    }

    @Test
    void withRedisUnreachableFailOpenLetsRequestsThroughFailClosedAnswers503AndHealthSaysSo() throws Exception {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort(); // nothing listens there once it is closed
        }
        ConfigurableApplicationContext app = start(closed);
        String account = "acct_" + UUID.randomUUID();

        for (int i = 0; i < 6; i++) {
            HttpResponse<String> paid = send(
                    app,
                    HttpRequest.newBuilder(uri(app, "/v1/payments"))
                            .header("Content-Type", "application/json")
                            .header("X-Account", account)
                            .header("Idempotency-Key", UUID.randomUUID().toString())
                            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 1}")));
            assertThat(paid.statusCode()).as("fail-open payment %d", i).isEqualTo(201);
            assertThat(paid.headers().firstValue("RateLimit-Policy")).isPresent();
            assertThat(paid.headers().firstValue("RateLimit"))
                    .as("nobody counted: no budget is shown")
                    .isEmpty();
        }

        HttpResponse<String> unchecked = read(app, account);
        assertThat(unchecked.statusCode()).isEqualTo(503);
        assertThat(unchecked.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(Long.parseLong(unchecked.headers().firstValue("Retry-After").orElseThrow()))
                .isGreaterThanOrEqualTo(1);
        JsonNode problem = JSON.readTree(unchecked.body());
        assertThat(problem.path("type").asString()).isEqualTo("/problems/rate-limit-unavailable");
        assertThat(problem.path("title").asString()).isEqualTo("Rate limits unavailable");
        assertThat(problem.path("retryable").asBoolean()).isTrue();
        assertThat(problem.has("retry_after")).isTrue();

        JsonNode health = health(app, 503);
        assertThat(health.path("status").asString()).isEqualTo("DOWN");
        assertThat(health.path("components").path("redis").path("status").asString())
                .isEqualTo("DOWN");
        JsonNode retrysafe = health.path("components").path("retrysafe");
        assertThat(retrysafe.path("status").asString())
                .as("the policies answer by their fail modes")
                .isEqualTo("UP");
        assertThat(retrysafe.path("details").path("redis").asString()).isEqualTo(RetrysafeHealthIndicator.DEGRADED);
    }

    private ConfigurableApplicationContext start(int redisPort) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApp.class)
                .properties(
                        "server.port=0",
                        "server.address=127.0.0.1",
                        "spring.datasource.url=jdbc:h2:mem:redis_"
                                + UUID.randomUUID().toString().replace("-", "") + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1",
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redisPort,
                        "spring.data.redis.database=" + DATABASE,
                        "spring.data.redis.timeout=1s",
                        "retrysafe.rate-limits.store=redis",
                        "retrysafe.rate-limits.redis.key-prefix=" + prefix,
                        "retrysafe.rate-limits.policies.reads.quota=3",
                        "retrysafe.rate-limits.policies.reads.window=1h",
                        "retrysafe.rate-limits.policies.reads.fail=closed",
                        "retrysafe.rate-limits.policies.payments.quota=100",
                        "retrysafe.rate-limits.policies.payments.window=1h",
                        "retrysafe.rate-limits.policies.payments.fail=open",
                        "management.endpoints.web.exposure.include=health",
                        "management.endpoint.health.show-details=always")
                .run();
        instances.add(context);
        return context;
    }

    private List<String> keys(RedisCommands<String, String> redis) {
        List<String> keys = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page =
                    redis.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(500));
            keys.addAll(page.getKeys());
            cursor = page;
        } while (!cursor.isFinished());
        return keys;
    }

    private HttpResponse<String> read(ConfigurableApplicationContext app, String account) throws Exception {
        return send(app, HttpRequest.newBuilder(uri(app, "/v1/payments/p1")).header("X-Account", account));
    }

    private JsonNode health(ConfigurableApplicationContext app, int status) throws Exception {
        HttpResponse<String> answer = send(app, HttpRequest.newBuilder(uri(app, "/actuator/health")));
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(status);
        return JSON.readTree(answer.body());
    }

    private HttpResponse<String> send(ConfigurableApplicationContext app, HttpRequest.Builder request)
            throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext app, String path) {
        int port = ((WebServerApplicationContext) app).getWebServer().getPort();
        return URI.create("http://127.0.0.1:" + port + path);
    }
}

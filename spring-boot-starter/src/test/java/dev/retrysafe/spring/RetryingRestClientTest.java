package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.client.Sleeper;
import dev.retrysafe.spring.autoconfigure.RetrysafeClientAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;

/**
 * The RestClient customizer against a real server on a random port whose routes answer {@code 503}
 * with {@code Retry-After: 1} the first time. A recording {@link Sleeper} stands in for waiting.
 */
@SpringBootTest(
        classes = RetryingRestClientTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "retrysafe.webhooks.out.enabled=false",
            "retrysafe.jobs.enabled=false",
            "spring.autoconfigure.exclude=" + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
        })
class RetryingRestClientTest {

    @LocalServerPort
    int port;

    @Autowired
    RestClient.Builder builder;

    @Autowired
    RecordingSleeper sleeper;

    @Autowired
    Flaky flaky;

    @Test
    void aGetAnswered503WithRetryAfterIsRetriedNoSoonerThanAsked() {
        int before = sleeper.waits.size();
        String body = client(builder).get().uri("/flaky/get-1").retrieve().body(String.class);

        assertThat(body).isEqualTo("ok");
        assertThat(flaky.calls("get-1")).isEqualTo(2);
        assertThat(sleeper.waits).hasSize(before + 1);
        assertThat(sleeper.waits.get(before)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aPostGetsAnIdempotencyKeyAndIsRetriedWithTheSameKey() {
        String body = client(builder).post().uri("/flaky/post-1").retrieve().body(String.class);

        assertThat(body).isEqualTo("ok");
        assertThat(flaky.calls("post-1")).isEqualTo(2);
        List<@Nullable String> keys = flaky.keys("post-1");
        assertThat(keys).hasSize(2).doesNotContainNull();
        assertThat(keys.get(0)).isEqualTo(keys.get(1));
    }

    @Test
    void aPostWithoutAKeyIsNotRetriedWhenKeysAreNotGenerated() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RestClientAutoConfiguration.class, RetrysafeClientAutoConfiguration.class))
                .withPropertyValues("retrysafe.client.generate-idempotency-keys=false")
                .withBean(Sleeper.class, RecordingSleeper::new)
                .run(context -> {
                    RestClient.Builder plain = context.getBean(RestClient.Builder.class);
                    assertThatThrownBy(() -> client(plain)
                                    .post()
                                    .uri("/flaky/post-2")
                                    .retrieve()
                                    .body(String.class))
                            .isInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
                    assertThat(flaky.calls("post-2")).isEqualTo(1);
                    assertThat(flaky.keys("post-2")).containsExactly((String) null);
                });
    }

    @Test
    void turnedOffTheBuilderDoesNotRetry() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RestClientAutoConfiguration.class, RetrysafeClientAutoConfiguration.class))
                .withPropertyValues("retrysafe.client.enabled=false")
                .run(context -> {
                    RestClient.Builder plain = context.getBean(RestClient.Builder.class);
                    assertThatThrownBy(() -> client(plain)
                                    .get()
                                    .uri("/flaky/get-2")
                                    .retrieve()
                                    .body(String.class))
                            .isInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
                    assertThat(flaky.calls("get-2")).isEqualTo(1);
                });
    }

    private RestClient client(RestClient.Builder from) {
        return from.clone().baseUrl("http://127.0.0.1:" + port).build();
    }

    /** Records the waits instead of waiting. */
    static final class RecordingSleeper implements Sleeper {
        final List<Duration> waits = new CopyOnWriteArrayList<>();

        @Override
        public void sleep(Duration duration) {
            waits.add(duration);
        }

        @Override
        public CompletableFuture<Void> delay(Duration duration) {
            waits.add(duration);
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Answers 503 with Retry-After: 1 to the first call of each name, then 200. */
    @RestController
    static class Flaky {
        private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        private final Map<String, List<@Nullable String>> keys = new ConcurrentHashMap<>();

        @RequestMapping("/flaky/{name}")
        ResponseEntity<String> answer(
                @PathVariable("name") String name,
                @RequestHeader(name = "Idempotency-Key", required = false) @Nullable String key) {
            keys.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(key);
            if (calls.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet() == 1) {
                return ResponseEntity.status(503).header("Retry-After", "1").body("busy");
            }
            return ResponseEntity.ok("ok");
        }

        int calls(String name) {
            return calls.getOrDefault(name, new AtomicInteger()).get();
        }

        List<@Nullable String> keys(String name) {
            return keys.getOrDefault(name, List.of());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        RecordingSleeper sleeper() {
            return new RecordingSleeper();
        }

        @Bean
        Flaky flaky() {
            return new Flaky();
        }
    }
}

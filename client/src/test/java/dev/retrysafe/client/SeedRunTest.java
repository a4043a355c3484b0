package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.client.testing.FakeSleeper;
import dev.retrysafe.client.testing.ScriptedServer;
import dev.retrysafe.client.testing.ScriptedServer.Answer;
import dev.retrysafe.testkit.FakeClock;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The seed's run against a real server on 127.0.0.1: {@code 503} with {@code Retry-After: 1},
 * {@code 500}, {@code 429} with {@code Retry-After: 0}, then {@code 200}. With a fake sleeper the
 * one-second wait is recorded, not spent.
 */
class SeedRunTest {

    private static final Duration BASE = Duration.ofMillis(100);

    private static ScriptedServer seedServer() {
        return ScriptedServer.answering(
                Answer.of(503, "Retry-After", "1"),
                Answer.of(500),
                Answer.of(429, "Retry-After", "0"),
                Answer.withBody(200, "{\"ok\":true}"));
    }

    @Test
    void fourAttemptsFirstWaitHonoursRetryAfterOthersWithinFullJitter() throws Exception {
        long seed = System.nanoTime();
        FakeClock clock = new FakeClock();
        FakeSleeper sleeper = new FakeSleeper(clock);
        List<Attempt> heard = new ArrayList<>();
        try (ScriptedServer server = seedServer();
                RetryingHttpClient client = RetryingHttpClient.builder()
                        .clock(clock)
                        .sleeper(sleeper)
                        .random(new Random(seed))
                        .listener(heard::add)
                        .build()) {
            CallResult<String> result = client.send(
                    HttpRequest.newBuilder(server.uri("/reports")).build(), HttpResponse.BodyHandlers.ofString());

            String why = "seed " + seed + ", attempts " + result.attempts();
            assertThat(result.statusCode()).as(why).isEqualTo(200);
            assertThat(result.body()).isEqualTo("{\"ok\":true}");
            assertThat(result.attemptCount()).as(why).isEqualTo(4);
            assertThat(server.received()).hasSize(4);
            assertThat(result.stopReason()).isEqualTo(StopReason.ANSWERED);
            assertThat(result.retryReasons())
                    .containsExactly(
                            new RetryReason.Status(503, Duration.ofSeconds(1)),
                            new RetryReason.Status(500, null),
                            new RetryReason.Status(429, Duration.ZERO));
            assertThat(heard).isEqualTo(result.attempts());

            List<Duration> waits =
                    result.attempts().stream().map(Attempt::waitAfter).toList();
            assertThat(sleeper.total()).isEqualTo(waits.stream().reduce(Duration.ZERO, Duration::plus));
            // 1: Retry-After 1 is a floor; the spread after it is at most one more second
            assertThat(waits.get(0)).as(why).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));
            // 2 and 3: full jitter, random(0, min(cap, base * 2^n)) for retry n = 1, 2
            assertThat(waits.get(1)).as(why).isBetween(Duration.ZERO, BASE.multipliedBy(2));
            assertThat(waits.get(2)).as(why).isBetween(Duration.ZERO, BASE.multipliedBy(4));
            assertThat(waits.get(3)).isZero();
            assertThat(result.attempts().get(0).retryAfter()).isEqualTo("1");
            assertThat(result.attempts().get(0).describe()).startsWith("attempt 1: 503, Retry-After=1, waiting ");
        }
    }

    @Test
    void theSameRunAsynchronously() throws Exception {
        long seed = System.nanoTime();
        FakeClock clock = new FakeClock();
        FakeSleeper sleeper = new FakeSleeper(clock);
        try (ScriptedServer server = seedServer();
                RetryingHttpClient client = RetryingHttpClient.builder()
                        .clock(clock)
                        .sleeper(sleeper)
                        .random(new Random(seed))
                        .build()) {
            CallResult<String> result = client.sendAsync(
                            HttpRequest.newBuilder(server.uri("/reports")).build(),
                            HttpResponse.BodyHandlers.ofString())
                    .get(15, TimeUnit.SECONDS);

            assertThat(result.statusCode()).isEqualTo(200);
            assertThat(result.attemptCount()).isEqualTo(4);
            assertThat(sleeper.waits().getFirst()).as("seed " + seed).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        }
    }

    @Test
    void aServerAnswering400FirstGetsExactlyOneAttempt() throws Exception {
        FakeClock clock = new FakeClock();
        FakeSleeper sleeper = new FakeSleeper(clock);
        try (ScriptedServer server =
                        ScriptedServer.answering(Answer.withBody(400, "{\"title\":\"bad\"}"), Answer.of(200));
                RetryingHttpClient client = RetryingHttpClient.builder()
                        .clock(clock)
                        .sleeper(sleeper)
                        .build()) {
            CallResult<String> result = client.send(
                    HttpRequest.newBuilder(server.uri("/reports")).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(result.statusCode()).isEqualTo(400);
            assertThat(result.attemptCount()).isEqualTo(1);
            assertThat(result.stopReason()).isEqualTo(StopReason.ANSWERED);
            assertThat(result.retryReasons()).isEmpty();
            assertThat(server.received()).hasSize(1);
            assertThat(sleeper.waits()).isEmpty();
        }
    }
}

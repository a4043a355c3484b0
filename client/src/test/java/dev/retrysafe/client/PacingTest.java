package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.retrysafe.client.testing.FakeSleeper;
import dev.retrysafe.client.testing.ScriptedServer;
import dev.retrysafe.client.testing.ScriptedServer.Answer;
import dev.retrysafe.testkit.FakeClock;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * An answer that says the host's rate limit is used up makes the next request to that host wait
 * for the reset, instead of collecting a {@code 429}.
 */
class PacingTest {

    private static final Duration JITTER = RetryPolicy.defaults().baseDelay();

    private final FakeClock clock = new FakeClock();
    private final FakeSleeper sleeper = new FakeSleeper(clock);

    private RetryingHttpClient client(RetryPolicy policy) {
        return RetryingHttpClient.builder()
                .clock(clock)
                .sleeper(sleeper)
                .random(new Random(3))
                .policy(policy)
                .build();
    }

    private static HttpRequest get(ScriptedServer server) {
        return HttpRequest.newBuilder(server.uri("/r")).build();
    }

    @Test
    void anExhaustedRateLimitFieldMakesTheNextRequestWaitForItsReset() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(
                        Answer.of(200, "RateLimit", "\"default\";r=0;t=5"),
                        Answer.of(200, "RateLimit", "\"default\";r=9;t=5"));
                RetryingHttpClient client = client(RetryPolicy.defaults())) {
            assertThat(client.send(get(server), HttpResponse.BodyHandlers.discarding())
                            .statusCode())
                    .isEqualTo(200);
            assertThat(sleeper.waits()).isEmpty();

            CallResult<Void> second = client.send(get(server), HttpResponse.BodyHandlers.discarding());
            assertThat(sleeper.waits())
                    .singleElement()
                    .satisfies(w -> assertThat(w)
                            .isBetween(
                                    Duration.ofSeconds(5), Duration.ofSeconds(5).plus(JITTER)));
            assertThat(second.attempts().getFirst().pacingWait())
                    .isEqualTo(sleeper.waits().getFirst());
            assertThat(server.received()).hasSize(2);

            // the second answer shows budget again: no more waiting
            client.send(get(server), HttpResponse.BodyHandlers.discarding());
            assertThat(sleeper.waits()).hasSize(1);
        }
    }

    @Test
    void theDeFactoHeadersWithAnEpochResetPaceToo() throws Exception {
        long reset = clock.instant().getEpochSecond() + 8;
        try (ScriptedServer server = ScriptedServer.answering(
                        new Answer(
                                200,
                                Map.of("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(reset)),
                                "",
                                null),
                        Answer.of(200));
                RetryingHttpClient client = client(RetryPolicy.defaults())) {
            client.send(get(server), HttpResponse.BodyHandlers.discarding());
            client.send(get(server), HttpResponse.BodyHandlers.discarding());
            assertThat(sleeper.waits())
                    .singleElement()
                    .satisfies(w -> assertThat(w)
                            .isBetween(
                                    Duration.ofSeconds(8), Duration.ofSeconds(8).plus(JITTER)));
        }
    }

    @Test
    void theWaitIsPerHost() throws Exception {
        try (ScriptedServer limited = ScriptedServer.answering(Answer.of(200, "RateLimit", "\"default\";r=0;t=5"));
                ScriptedServer other = ScriptedServer.answering(Answer.of(200));
                RetryingHttpClient client = client(RetryPolicy.defaults())) {
            client.send(get(limited), HttpResponse.BodyHandlers.discarding());
            client.send(get(other), HttpResponse.BodyHandlers.discarding());
            assertThat(sleeper.waits()).isEmpty();
        }
    }

    @Test
    void aResetBeyondTheLimitFailsWithoutSendingAnything() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(200, "RateLimit", "\"daily\";r=0;t=3600"));
                RetryingHttpClient client = client(RetryPolicy.defaults())) {
            client.send(get(server), HttpResponse.BodyHandlers.discarding());
            WaitTooLongException e = catchThrowableOfType(
                    WaitTooLongException.class, () -> client.send(get(server), HttpResponse.BodyHandlers.discarding()));

            assertThat(e.source()).isEqualTo(WaitTooLongException.Source.RATE_LIMIT_RESET);
            assertThat(e.limit()).isEqualTo(WaitTooLongException.Limit.MAX_RETRY_AFTER);
            assertThat(e.requested()).isEqualTo(Duration.ofHours(1));
            assertThat(e.status()).isEmpty();
            assertThat(e.attempts()).isEmpty();
            assertThat(e.getMessage()).startsWith("the host's rate limit is exhausted for another 3600 s");
            assertThat(server.received()).hasSize(1);
            assertThat(sleeper.waits()).isEmpty();
        }
    }

    @Test
    void retryAfterWinsOverTheRateLimitFields() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(
                        new Answer(429, Map.of("Retry-After", "1", "RateLimit", "\"default\";r=0;t=15"), "", null),
                        Answer.of(200));
                RetryingHttpClient client = client(RetryPolicy.defaults())) {
            CallResult<Void> result = client.send(get(server), HttpResponse.BodyHandlers.discarding());
            assertThat(result.statusCode()).isEqualTo(200);
            assertThat(sleeper.waits())
                    .singleElement()
                    .satisfies(w -> assertThat(w).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2)));
        }
    }

    @Test
    void pacingCanBeTurnedOff() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(200, "RateLimit", "\"default\";r=0;t=5"));
                RetryingHttpClient client =
                        client(RetryPolicy.builder().pacing(false).build())) {
            client.send(get(server), HttpResponse.BodyHandlers.discarding());
            client.send(get(server), HttpResponse.BodyHandlers.discarding());
            assertThat(sleeper.waits()).isEmpty();
        }
    }
}

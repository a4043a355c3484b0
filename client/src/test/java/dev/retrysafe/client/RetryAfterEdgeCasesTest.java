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
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code Retry-After} values as a real server sends them, each handled as documented (the table
 * in {@link RetryPolicy} and docs/client.md).
 */
class RetryAfterEdgeCasesTest {

    private static final Duration FIRST_JITTER_BOUND = RetryPolicy.defaults().backoffBound(0);

    private final FakeClock clock = new FakeClock(Instant.parse("2026-03-01T12:00:00Z"));
    private final FakeSleeper sleeper = new FakeSleeper(clock);
    private final long seed = System.nanoTime();

    private RetryingHttpClient client(RetryPolicy policy) {
        return RetryingHttpClient.builder()
                .clock(clock)
                .sleeper(sleeper)
                .random(new Random(seed))
                .policy(policy)
                .build();
    }

    private CallResult<Void> call(String retryAfter, RetryPolicy policy) throws Exception {
        try (ScriptedServer server =
                        ScriptedServer.answering(Answer.of(503, "Retry-After", retryAfter), Answer.of(200));
                RetryingHttpClient client = client(policy)) {
            return client.send(
                    HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding());
        }
    }

    private String httpDate(Instant at) {
        return DateTimeFormatter.RFC_1123_DATE_TIME.format(at.atOffset(ZoneOffset.UTC));
    }

    @Test
    void anHttpDateInTheFutureIsAFloorFromTheClock() throws Exception {
        CallResult<Void> result = call(httpDate(clock.instant().plusSeconds(3)), RetryPolicy.defaults());
        assertThat(result.retryReasons()).containsExactly(new RetryReason.Status(503, Duration.ofSeconds(3)));
        assertThat(sleeper.waits().getFirst())
                .as("seed " + seed)
                .isBetween(Duration.ofSeconds(3), Duration.ofSeconds(6));
    }

    @Test
    void anHttpDateInThePastMeansNoFloor() throws Exception {
        CallResult<Void> result = call(httpDate(clock.instant().minusSeconds(3600)), RetryPolicy.defaults());
        assertThat(result.statusCode()).isEqualTo(200);
        assertThat(result.retryReasons()).containsExactly(new RetryReason.Status(503, Duration.ZERO));
        assertThat(result.attempts().getFirst().waitAfter())
                .as("seed " + seed)
                .isBetween(Duration.ZERO, FIRST_JITTER_BOUND);
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"-5", "soon", "1.5", "1e3", "Mon, 32 Jan 2026 00:00:00 GMT"})
    void aNegativeOrMalformedValueIsIgnoredAndTheBackoffAloneApplies(String value) throws Exception {
        CallResult<Void> result = call(value, RetryPolicy.defaults());
        assertThat(result.statusCode()).isEqualTo(200);
        assertThat(result.retryReasons()).containsExactly(new RetryReason.Status(503, null));
        assertThat(result.attempts().getFirst().retryAfter()).isEqualTo(value);
        assertThat(result.attempts().getFirst().waitAfter())
                .as("seed " + seed)
                .isBetween(Duration.ZERO, FIRST_JITTER_BOUND);
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"99999999999999999999", "3600", "Fri, 31 Dec 9999 23:59:59 GMT"})
    void aHugeValueFailsFastWithoutSleeping(String value) throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503, "Retry-After", value), Answer.of(200));
                RetryingHttpClient client = client(RetryPolicy.defaults())) {
            WaitTooLongException e = catchThrowableOfType(
                    WaitTooLongException.class,
                    () -> client.send(
                            HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding()));

            assertThat(e.source()).isEqualTo(WaitTooLongException.Source.RETRY_AFTER);
            assertThat(e.limit()).isEqualTo(WaitTooLongException.Limit.MAX_RETRY_AFTER);
            assertThat(e.allowed()).isEqualTo(Duration.ofSeconds(20));
            assertThat(e.requested()).isGreaterThanOrEqualTo(Duration.ofHours(1));
            assertThat(e.status()).hasValue(503);
            assertThat(e.stopReason()).isEqualTo(StopReason.WAIT_TOO_LONG);
            assertThat(e.attempts()).hasSize(1);
            assertThat(e.getMessage())
                    .contains("answered 503 with Retry-After")
                    .contains("maxRetryAfter is 20 s")
                    .endsWith("not waiting (retry the call later)");
            assertThat(sleeper.waits()).isEmpty();
            assertThat(server.received()).hasSize(1);
        }
    }

    @Test
    void aRetryAfterBeyondTheDeadlineFailsFastNamingTheDeadline() throws Exception {
        RetryPolicy tight =
                RetryPolicy.builder().deadline(Duration.ofSeconds(5)).build();
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(429, "Retry-After", "10"), Answer.of(200));
                RetryingHttpClient client = client(tight)) {
            WaitTooLongException e = catchThrowableOfType(
                    WaitTooLongException.class,
                    () -> client.send(
                            HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding()));
            assertThat(e.limit()).isEqualTo(WaitTooLongException.Limit.DEADLINE);
            assertThat(e.requested()).isEqualTo(Duration.ofSeconds(10));
            assertThat(e.allowed()).isLessThan(Duration.ofSeconds(5));
            assertThat(e.getMessage()).contains("before the call's deadline");
            assertThat(sleeper.waits()).isEmpty();
        }
    }

    @Test
    void aRetryAfterOnTheLastAttemptIsJustTheAnswer() throws Exception {
        RetryPolicy once = RetryPolicy.builder().maxAttempts(1).build();
        CallResult<Void> result = call("99999", once);
        assertThat(result.statusCode()).isEqualTo(503);
        assertThat(result.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
    }

    @Test
    void aMaxRetryAfterOfZeroRefusesAnyPositiveWait() throws Exception {
        RetryPolicy noWaiting =
                RetryPolicy.builder().maxRetryAfter(Duration.ZERO).build();
        assertThat(call("0", noWaiting).statusCode()).isEqualTo(200);
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503, "Retry-After", "1"));
                RetryingHttpClient client = client(noWaiting)) {
            assertThat(catchThrowableOfType(
                                    WaitTooLongException.class,
                                    () -> client.send(
                                            HttpRequest.newBuilder(server.uri("/r"))
                                                    .build(),
                                            HttpResponse.BodyHandlers.discarding()))
                            .requested())
                    .isEqualTo(Duration.ofSeconds(1));
        }
    }
}

package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.retrysafe.client.testing.FakeSleeper;
import dev.retrysafe.client.testing.ScriptedServer;
import dev.retrysafe.client.testing.ScriptedServer.Answer;
import dev.retrysafe.testkit.FakeClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Which requests are retried, with which key, after which failures; against a real local server. */
class MethodAndFailureRulesTest {

    private final FakeClock clock = new FakeClock();
    private final FakeSleeper sleeper = new FakeSleeper(clock);

    private RetryingHttpClient client(RetryPolicy policy) {
        return RetryingHttpClient.builder()
                .clock(clock)
                .sleeper(sleeper)
                .random(new Random(7))
                .budget(RetryBudget.unlimited())
                .policy(policy)
                .build();
    }

    private RetryingHttpClient client() {
        return client(RetryPolicy.defaults());
    }

    private static HttpRequest post(URI uri) {
        return HttpRequest.newBuilder(uri)
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":500}"))
                .build();
    }

    /** The two ways to make one call: blocking, and through the future of the asynchronous path. */
    enum Path {
        SYNC,
        ASYNC;

        CallResult<Void> call(RetryingHttpClient client, HttpRequest request, RetryPolicy policy) throws Exception {
            return this == SYNC
                    ? client.send(request, HttpResponse.BodyHandlers.discarding(), policy)
                    : client.sendAsync(request, HttpResponse.BodyHandlers.discarding(), policy)
                            .get(10, TimeUnit.SECONDS);
        }

        CallResult<Void> call(RetryingHttpClient client, HttpRequest request) throws Exception {
            return this == SYNC
                    ? client.send(request, HttpResponse.BodyHandlers.discarding())
                    : client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                            .get(10, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Path.class)
    void aPerRequestPolicyOfOneAttemptOverridesAClientThatAllowsFive(Path path) throws Exception {
        RetryPolicy once = RetryPolicy.builder().maxAttempts(1).build();
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(200));
                RetryingHttpClient client = client()) {
            assertThat(client.policy().maxAttempts()).isEqualTo(5);
            CallResult<Void> result =
                    path.call(client, HttpRequest.newBuilder(server.uri("/r")).build(), once);

            assertThat(result.statusCode()).isEqualTo(503);
            assertThat(result.attemptCount()).isEqualTo(1);
            assertThat(result.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
            assertThat(server.received()).hasSize(1);
            assertThat(sleeper.waits()).isEmpty();
        }
        // the client's own policy is untouched: the next call without one is retried
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(200));
                RetryingHttpClient client = client()) {
            CallResult<Void> result =
                    path.call(client, HttpRequest.newBuilder(server.uri("/r")).build());
            assertThat(result.statusCode()).isEqualTo(200);
            assertThat(result.attemptCount()).isEqualTo(2);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Path.class)
    void aPerRequestPolicyOfFiveAttemptsOverridesAClientThatAllowsOne(Path path) throws Exception {
        RetryPolicy once = RetryPolicy.builder().maxAttempts(1).build();
        RetryPolicy five = RetryPolicy.builder().maxAttempts(5).build();
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(200));
                RetryingHttpClient client = client(once)) {
            CallResult<Void> result =
                    path.call(client, HttpRequest.newBuilder(server.uri("/r")).build(), five);

            assertThat(result.statusCode()).isEqualTo(200);
            assertThat(result.attemptCount()).isEqualTo(2);
            assertThat(result.retryReasons()).containsExactly(new RetryReason.Status(503, null));
            assertThat(server.received()).hasSize(2);
        }
        // and the client's own single attempt still applies to a call without a policy
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(200));
                RetryingHttpClient client = client(once)) {
            CallResult<Void> result =
                    path.call(client, HttpRequest.newBuilder(server.uri("/r")).build());
            assertThat(result.statusCode()).isEqualTo(503);
            assertThat(result.attemptCount()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Path.class)
    void aPerRequestPolicyBringsItsOwnRetryableStatusesAndKeyRule(Path path) throws Exception {
        // the client would retry the 503 of a POST with a generated key; this call's policy retries
        // only 409s and generates no key, so the POST is sent once and keeps no key
        RetryPolicy strict = RetryPolicy.builder()
                .retryableStatuses(java.util.Set.of(409))
                .generateIdempotencyKeys(false)
                .build();
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(201));
                RetryingHttpClient client = client()) {
            CallResult<Void> result = path.call(client, post(server.uri("/p")), strict);

            assertThat(result.statusCode()).isEqualTo(503);
            assertThat(result.attemptCount()).isEqualTo(1);
            assertThat(result.idempotencyKey()).isNull();
            assertThat(server.received().getFirst().header("Idempotency-Key")).isNull();
        }
    }

    @Test
    void aPostGetsOneGeneratedKeySentUnchangedOnEveryAttempt() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(502), Answer.of(201));
                RetryingHttpClient client = client()) {
            CallResult<String> result =
                    client.send(post(server.uri("/v1/payments")), HttpResponse.BodyHandlers.ofString());

            assertThat(result.statusCode()).isEqualTo(201);
            assertThat(result.attemptCount()).isEqualTo(3);
            List<String> keys = server.received().stream()
                    .map(r -> r.header("Idempotency-Key"))
                    .toList();
            assertThat(keys).hasSize(3).doesNotContainNull().containsOnly(result.idempotencyKey());
            assertThat(result.idempotencyKey())
                    .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
            assertThat(server.received()).allSatisfy(r -> assertThat(r.body()).isEqualTo("{\"amount\":500}"));
            assertThat(result.attempts())
                    .allSatisfy(a -> assertThat(a.idempotencyKey()).isEqualTo(result.idempotencyKey()));
        }
    }

    @Test
    void twoCallsGetTwoKeys() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(201));
                RetryingHttpClient client = client()) {
            String first = client.send(post(server.uri("/p")), HttpResponse.BodyHandlers.discarding())
                    .idempotencyKey();
            String second = client.send(post(server.uri("/p")), HttpResponse.BodyHandlers.discarding())
                    .idempotencyKey();
            assertThat(first).isNotNull().isNotEqualTo(second);
        }
    }

    @Test
    void theCallersOwnKeyIsKept() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(500), Answer.of(201));
                RetryingHttpClient client = client()) {
            HttpRequest request = HttpRequest.newBuilder(server.uri("/p"))
                    .header("Idempotency-Key", "order-17")
                    .POST(HttpRequest.BodyPublishers.ofString("{}"))
                    .build();
            CallResult<Void> result = client.send(request, HttpResponse.BodyHandlers.discarding());

            assertThat(result.attemptCount()).isEqualTo(2);
            assertThat(result.idempotencyKey()).isEqualTo("order-17");
            assertThat(server.received())
                    .extracting(r -> r.header("Idempotency-Key"))
                    .containsExactly("order-17", "order-17");
        }
    }

    @Test
    void aPostWithoutKeyIsNeverRetried() throws Exception {
        RetryPolicy noKeys =
                RetryPolicy.builder().generateIdempotencyKeys(false).build();
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(201));
                RetryingHttpClient client = client(noKeys)) {
            CallResult<Void> result = client.send(post(server.uri("/p")), HttpResponse.BodyHandlers.discarding());

            assertThat(result.statusCode()).isEqualTo(503);
            assertThat(result.attemptCount()).isEqualTo(1);
            assertThat(result.stopReason()).isEqualTo(StopReason.UNSAFE_METHOD);
            assertThat(server.received().getFirst().header("Idempotency-Key")).isNull();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
    void idempotentMethodsAreRetriedWithoutKey(String method) throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(504), Answer.of(200));
                RetryingHttpClient client = client()) {
            HttpRequest request = HttpRequest.newBuilder(server.uri("/r"))
                    .method(method, HttpRequest.BodyPublishers.noBody())
                    .build();
            CallResult<Void> result = client.send(request, HttpResponse.BodyHandlers.discarding());

            assertThat(result.statusCode()).isEqualTo(200);
            assertThat(result.attemptCount()).isEqualTo(2);
            assertThat(server.received())
                    .allSatisfy(r -> assertThat(r.header("Idempotency-Key")).isNull());
        }
    }

    @Test
    void aPatchGetsAKeyAndAnUnknownMethodIsNotRetried() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(200));
                RetryingHttpClient client = client()) {
            HttpRequest patch = HttpRequest.newBuilder(server.uri("/r"))
                    .method("PATCH", HttpRequest.BodyPublishers.ofString("{}"))
                    .build();
            assertThat(client.send(patch, HttpResponse.BodyHandlers.discarding())
                            .attemptCount())
                    .isEqualTo(2);
        }
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(200));
                RetryingHttpClient client = client()) {
            HttpRequest purge = HttpRequest.newBuilder(server.uri("/r"))
                    .method("PURGE", HttpRequest.BodyPublishers.noBody())
                    .build();
            CallResult<Void> result = client.send(purge, HttpResponse.BodyHandlers.discarding());
            assertThat(result.attemptCount()).isEqualTo(1);
            assertThat(result.stopReason()).isEqualTo(StopReason.UNSAFE_METHOD);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {400, 401, 403, 404, 409, 410, 422, 501, 505})
    void otherStatusesAreFinal(int status) throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(status, "Retry-After", "1"), Answer.of(200));
                RetryingHttpClient client = client()) {
            CallResult<Void> result = client.send(
                    HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(result.statusCode()).isEqualTo(status);
            assertThat(result.attemptCount()).isEqualTo(1);
            assertThat(sleeper.waits()).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {408, 429, 500, 502, 503, 504})
    void theRetryableStatusesAreRetried(int status) throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(status), Answer.of(200));
                RetryingHttpClient client = client()) {
            CallResult<Void> result = client.send(
                    HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(result.statusCode()).isEqualTo(200);
            assertThat(result.retryReasons()).containsExactly(new RetryReason.Status(status, null));
        }
    }

    @Test
    void theSetOfRetryableStatusesIsConfigurable() throws Exception {
        RetryPolicy only409 =
                RetryPolicy.builder().retryableStatuses(java.util.Set.of(409)).build();
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(409), Answer.of(503), Answer.of(200));
                RetryingHttpClient client = client(only409)) {
            CallResult<Void> result = client.send(
                    HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(result.statusCode()).isEqualTo(503);
            assertThat(result.attemptCount()).isEqualTo(2);
        }
    }

    @Test
    void aKeyInUseConflictIsRetriedButAReplayedOrUnkeyedOneIsNot() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(409, "Retry-After", "1"), Answer.of(201));
                RetryingHttpClient client = client()) {
            CallResult<Void> result = client.send(post(server.uri("/p")), HttpResponse.BodyHandlers.discarding());
            assertThat(result.statusCode()).isEqualTo(201);
            assertThat(result.retryReasons()).containsExactly(new RetryReason.Status(409, Duration.ofSeconds(1)));
            assertThat(sleeper.waits().getFirst()).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        }
        try (ScriptedServer server = ScriptedServer.answering(
                        new Answer(409, java.util.Map.of("Retry-After", "1", "Idempotent-Replayed", "true"), "", null),
                        Answer.of(201));
                RetryingHttpClient client = client()) {
            assertThat(client.send(post(server.uri("/p")), HttpResponse.BodyHandlers.discarding())
                            .attemptCount())
                    .as("a stored 409 replayed")
                    .isEqualTo(1);
        }
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(409, "Retry-After", "1"), Answer.of(200));
                RetryingHttpClient client = client()) {
            assertThat(client.send(
                                    HttpRequest.newBuilder(server.uri("/r")).build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .attemptCount())
                    .as("a GET has no key")
                    .isEqualTo(1);
        }
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(409), Answer.of(201));
                RetryingHttpClient client = client()) {
            assertThat(client.send(post(server.uri("/p")), HttpResponse.BodyHandlers.discarding())
                            .attemptCount())
                    .as("a 409 without Retry-After is a conflict, not a key in use")
                    .isEqualTo(1);
        }
    }

    @Test
    void aTimeoutIsRetriedAndTheFirstAnswerWinsTheRace() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        RetryPolicy shortAttempts =
                RetryPolicy.builder().attemptTimeout(Duration.ofMillis(200)).build();
        try (ScriptedServer server = ScriptedServer.answering(Answer.after(never, 200), Answer.of(201));
                RetryingHttpClient client = client(shortAttempts)) {
            try {
                CallResult<Void> result = client.send(post(server.uri("/p")), HttpResponse.BodyHandlers.discarding());
                assertThat(result.statusCode()).isEqualTo(201);
                assertThat(result.retryReasons())
                        .singleElement()
                        .isInstanceOfSatisfying(
                                RetryReason.Failure.class,
                                f -> assertThat(f.kind()).isEqualTo(FailureKind.TIMEOUT));
                assertThat(result.attempts().getFirst().failure()).isInstanceOf(HttpTimeoutException.class);
            } finally {
                never.countDown();
            }
        }
    }

    @Test
    void aDroppedConnectionIsRetriedAsAReset() throws Exception {
        // a POST: java.net.http itself repeats a GET once on a dropped connection
        try (ScriptedServer server = ScriptedServer.answering(Answer.hangUp(), Answer.of(201));
                RetryingHttpClient client = client()) {
            CallResult<Void> result = client.send(post(server.uri("/p")), HttpResponse.BodyHandlers.discarding());
            assertThat(result.statusCode()).isEqualTo(201);
            assertThat(server.received()).hasSize(2);
            assertThat(result.retryReasons())
                    .singleElement()
                    .isInstanceOfSatisfying(
                            RetryReason.Failure.class, f -> assertThat(f.kind()).isEqualTo(FailureKind.RESET));
        }
    }

    @Test
    void aRefusedConnectionIsRetriedThenReportedWithEveryAttempt() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort(); // closed again: nothing listens there
        }
        RetryPolicy three = RetryPolicy.builder().maxAttempts(3).build();
        try (RetryingHttpClient client = client(three)) {
            RetryFailedException e = catchThrowableOfType(
                    RetryFailedException.class,
                    () -> client.send(
                            post(URI.create("http://127.0.0.1:" + port + "/p")),
                            HttpResponse.BodyHandlers.discarding()));

            assertThat(e.stopReason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
            assertThat(e.attempts())
                    .hasSize(3)
                    .allSatisfy(a -> assertThat(a.failure()).isNotNull());
            assertThat(e.attempts())
                    .extracting(Attempt::decision)
                    .first()
                    .isInstanceOfSatisfying(
                            Decision.Retry.class,
                            r -> assertThat(((RetryReason.Failure) r.reason()).kind())
                                    .isEqualTo(FailureKind.CONNECT));
            assertThat(e.getCause()).isInstanceOf(IOException.class);
            assertThat(e.idempotencyKey()).isNotNull();
            assertThat(e.getMessage())
                    .startsWith("POST http://127.0.0.1:" + port + "/p failed after 3 attempts (no attempts left)");
        }
    }
}

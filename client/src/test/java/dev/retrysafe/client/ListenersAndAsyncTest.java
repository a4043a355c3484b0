package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.client.FakeHttpClient.Outcome;
import dev.retrysafe.client.testing.FakeSleeper;
import dev.retrysafe.client.testing.ScriptedServer;
import dev.retrysafe.client.testing.ScriptedServer.Answer;
import dev.retrysafe.testkit.FakeClock;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ListenersAndAsyncTest {

    private final FakeClock clock = new FakeClock();

    @Test
    void everyListenerHearsEveryAttemptAndAFailingOneChangesNothing() throws Exception {
        List<Attempt> heard = new ArrayList<>();
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503), Answer.of(500), Answer.of(200));
                RetryingHttpClient client = RetryingHttpClient.builder()
                        .clock(clock)
                        .sleeper(new FakeSleeper(clock))
                        .listener(a -> {
                            throw new IllegalStateException("a broken metrics listener");
                        })
                        .listener(heard::add)
                        .build()) {
            CallResult<Void> result = client.send(
                    HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(result.statusCode()).isEqualTo(200);
            assertThat(heard).extracting(Attempt::number).containsExactly(1, 2, 3);
            assertThat(heard.get(2).decision()).isEqualTo(new Decision.Stop(StopReason.ANSWERED));
        }
    }

    @Test
    void theBodiesOfRetriedAnswersAreClosedAndTheLastIsHandedOver() throws Exception {
        List<TrackedStream> bodies = new ArrayList<>();
        FakeHttpClient http = new FakeHttpClient(clock, request -> {
            TrackedStream body = new TrackedStream();
            bodies.add(body);
            int status = bodies.size() < 3 ? 503 : 200;
            return new Outcome(Duration.ofMillis(5), status, Map.of(), null, body);
        });
        try (RetryingHttpClient client = RetryingHttpClient.builder()
                .httpClient(http)
                .clock(clock)
                .sleeper(new FakeSleeper(clock))
                .build()) {
            CallResult<InputStream> result = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:9/r")).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(result.attemptCount()).isEqualTo(3);
            assertThat(bodies).extracting(b -> b.closed.get()).containsExactly(true, true, false);
            assertThat(result.body()).isSameAs(bodies.get(2));
        }
    }

    @Test
    void cancellingAnAsyncCallStopsItsRetries() throws Exception {
        CompletableFuture<Void> pendingWait = new CompletableFuture<>();
        Sleeper held = new Sleeper() {
            @Override
            public void sleep(Duration duration) {
                throw new AssertionError("the async path never blocks");
            }

            @Override
            public CompletableFuture<Void> delay(Duration duration) {
                return duration.isZero() ? CompletableFuture.completedFuture(null) : pendingWait;
            }
        };
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503));
                RetryingHttpClient client =
                        RetryingHttpClient.builder().clock(clock).sleeper(held).build()) {
            CompletableFuture<CallResult<Void>> call = client.sendAsync(
                    HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding());
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> server.received().size() == 1 && pendingWaitRequested(pendingWait));
            assertThat(call.cancel(true)).isTrue();
            pendingWait.complete(null); // the wait ends; the call must not go on
            assertThatThrownBy(() -> call.get(1, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
            assertThat(server.received()).hasSize(1);
        }
    }

    private static boolean pendingWaitRequested(CompletableFuture<Void> wait) {
        return wait.getNumberOfDependents() > 0;
    }

    @Test
    void anAsyncCallFailsWithTheSameExceptionsAsASyncOne() throws Exception {
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503, "Retry-After", "86400"));
                RetryingHttpClient client = RetryingHttpClient.builder()
                        .clock(clock)
                        .sleeper(new FakeSleeper(clock))
                        .build()) {
            CompletableFuture<CallResult<Void>> call = client.sendAsync(
                    HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding());
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(WaitTooLongException.class);
        }
    }

    @Test
    void aClientClosesOnlyTheHttpClientItCreated() {
        FakeHttpClient http = new FakeHttpClient(clock, r -> Outcome.answer(Duration.ZERO, 200, Map.of()));
        RetryingHttpClient client =
                RetryingHttpClient.builder().httpClient(http).build();
        client.close();
        assertThat(http.closed()).as("a client passed in is left to its owner").isFalse();
        http.close();
        assertThat(http.closed()).isTrue();
    }

    private static final class TrackedStream extends ByteArrayInputStream {
        final AtomicBoolean closed = new AtomicBoolean();

        TrackedStream() {
            super(new byte[] {1, 2, 3});
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }
}

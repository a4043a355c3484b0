package dev.retrysafe.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.ConcurrencySlot;
import dev.retrysafe.ratelimit.InMemoryConcurrencyStore;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.Scope;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrency limits in the rate-limit step, over real HTTP: a key's requests beyond the limit
 * answer {@code 429 concurrency-limited} naming the policy, with {@code Retry-After}, and spend
 * no rate budget; a slot comes back when the request ends, however it ends (answered, thrown,
 * asynchronous and completed or timed out).
 */
class ConcurrencyLimitFilterTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final ConcurrencyPolicy TWO_AT_ONCE = ConcurrencyPolicy.builder("in-flight")
            .scope(Scope.apiKey())
            .limit(2)
            .build();
    private static final Policy HUNDRED_PER_HOUR = Policy.builder("hourly")
            .scope(Scope.apiKey())
            .limit(100, Duration.ofHours(1))
            .build();

    private final InMemoryConcurrencyStore slots = InMemoryConcurrencyStore.create();
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    /** Taken by each request with {@code ?block} once inside the handler. */
    private final Semaphore entered = new Semaphore(0);
    /** Lets blocked requests finish, one permit each. */
    private final Semaphore proceed = new Semaphore(0);

    private TestServer server;

    @AfterEach
    void stop() {
        proceed.release(1000);
        if (server != null) {
            server.close();
        }
        http.close();
    }

    private void start(HttpServlet servlet) throws Exception {
        server = new TestServer(rateLimits(), servlet);
    }

    private RateLimitFilter rateLimits() {
        return RateLimitFilter.builder()
                .store(InMemoryRateLimitStore.builder().build())
                .policy(HUNDRED_PER_HOUR)
                .concurrencyStore(slots)
                .concurrencyPolicy(TWO_AT_ONCE)
                .facts(request -> new RequestFacts(request.getHeader("X-Key"), null, "127.0.0.1", null, null, 1))
                .build();
    }

    private HttpServlet blocking() {
        return new HttpServlet() {
            @Override
            protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
                if (request.getQueryString() != null && request.getQueryString().contains("block")) {
                    entered.release();
                    try {
                        if (!proceed.tryAcquire(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                            throw new IllegalStateException("never told to proceed");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                if (request.getQueryString() != null && request.getQueryString().contains("throw")) {
                    throw new IllegalStateException("the handler failed");
                }
                response.setStatus(200);
                response.getWriter().write("ok");
            }
        };
    }

    private CompletableFuture<HttpResponse<String>> send(String key, String query) {
        HttpRequest request = HttpRequest.newBuilder(server.uri("/work?" + query))
                .header("X-Key", key)
                .timeout(DEADLINE)
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> sendNow(String key, String query) throws Exception {
        return send(key, query).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    private void awaitEntered(int requests) throws InterruptedException {
        assertThat(entered.tryAcquire(requests, DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .as("%d requests inside the handler", requests)
                .isTrue();
    }

    private int inFlight(String key) {
        return slots.inFlight("", new ConcurrencySlot(TWO_AT_ONCE, key));
    }

    @Test
    void aThirdRequestInFlightIsRefusedNamingThePolicyAndSpendsNothing() throws Exception {
        start(blocking());
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        held.add(send("key_1", "block"));
        held.add(send("key_1", "block"));
        awaitEntered(2);

        HttpResponse<String> third = sendNow("key_1", "x");

        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(third.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(third.body())
                .contains(
                        "\"type\":\"/problems/concurrency-limited\"",
                        "\"policy\":\"in-flight\"",
                        "\"limit\":2",
                        "\"retry_after\":1");
        // the hourly policy's charge was given back: the two running requests spent 2 of 100
        assertThat(third.headers().firstValue("X-RateLimit-Remaining")).hasValue("98");
        assertThat(sendNow("key_2", "x").statusCode()).as("another key").isEqualTo(200);

        proceed.release(2);
        for (CompletableFuture<HttpResponse<String>> answer : held) {
            assertThat(answer.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).statusCode())
                    .isEqualTo(200);
        }
        assertThat(inFlight("key_1")).as("slots given back once answered").isZero();
        assertThat(sendNow("key_1", "x").statusCode()).isEqualTo(200);
    }

    @Test
    void requestDecisionsHoldTheSlotUntilTheOperationHasEnded() throws Exception {
        server = new TestServer(
                RequestDecisions.builder().rateLimits(rateLimits()).build(), blocking());
        CompletableFuture<HttpResponse<String>> first = send("key_1", "block");
        CompletableFuture<HttpResponse<String>> second = send("key_1", "block");
        awaitEntered(2);

        assertThat(sendNow("key_1", "x").statusCode()).isEqualTo(429);
        proceed.release(2);
        assertThat(first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).statusCode())
                .isEqualTo(200);
        assertThat(second.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).statusCode())
                .isEqualTo(200);

        assertThat(inFlight("key_1")).isZero();
        assertThat(sendNow("key_1", "throw").statusCode()).isEqualTo(500);
        assertThat(inFlight("key_1")).as("given back after an exception too").isZero();
    }

    @Test
    void aRequestThatThrowsGivesItsSlotBack() throws Exception {
        start(blocking());

        for (int i = 0; i < 3; i++) {
            assertThat(sendNow("key_1", "throw").statusCode()).isEqualTo(500);
        }

        assertThat(inFlight("key_1")).isZero();
    }

    @Test
    void anAsynchronousRequestHoldsItsSlotUntilItCompletesOrTimesOut() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AsyncContext[] pending = new AsyncContext[1];
        start(new HttpServlet() {
            @Override
            protected void service(HttpServletRequest request, HttpServletResponse response) {
                if ("timeout".equals(request.getQueryString())) {
                    request.startAsync().setTimeout(200); // Jetty answers it (500) when it times out
                    return;
                }
                AsyncContext async = request.startAsync();
                async.setTimeout(DEADLINE.toMillis());
                pending[0] = async;
                started.countDown();
            }
        });

        CompletableFuture<HttpResponse<String>> first = send("key_1", "async");
        assertThat(started.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        org.awaitility.Awaitility.await().atMost(DEADLINE).until(() -> inFlight("key_1") == 1);
        assertThat(inFlight("key_1")).as("held after the servlet returned").isEqualTo(1);

        pending[0].getResponse().getWriter().write("done");
        pending[0].complete();
        assertThat(first.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).statusCode())
                .isEqualTo(200);
        org.awaitility.Awaitility.await().atMost(DEADLINE).until(() -> inFlight("key_1") == 0);

        sendNow("key_1", "timeout");
        org.awaitility.Awaitility.await().atMost(DEADLINE).until(() -> inFlight("key_1") == 0);
    }
}

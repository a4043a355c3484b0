package dev.retrysafe.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests in flight per caller are bounded: past the bound a caller gets {@code 429
 * too-many-in-flight} at once, other callers are not affected, and a finished request gives its
 * place back (the count drops to zero and is forgotten).
 */
class InFlightLimitFilterTest {

    private final CountDownLatch release = new CountDownLatch(1);
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private TestServer server;

    /** Answers 200 once the test releases it. */
    private final HttpServlet held = new HttpServlet() {
        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
            try {
                if (!release.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the held requests");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            response.setStatus(200);
            response.getWriter().write("done");
        }
    };

    @AfterEach
    void stop() {
        release.countDown();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void pastItsBoundACallerIsRefusedAtOnceAndOthersAreNot() throws Exception {
        InFlightLimitFilter filter = InFlightLimitFilter.builder()
                .limit("account", 2, request -> request.getHeader("X-Account"))
                .build();
        server = new TestServer(held, filter);
        List<CompletableFuture<HttpResponse<String>>> holding = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            holding.add(http.sendAsync(request("acme"), HttpResponse.BodyHandlers.ofString()));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> filter.inFlight("account", "acme") == 2);

        HttpResponse<String> refused = http.send(request("acme"), HttpResponse.BodyHandlers.ofString());
        CompletableFuture<HttpResponse<String>> other =
                http.sendAsync(request("umbrella"), HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(10)).until(() -> filter.inFlight("account", "umbrella") == 1);

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(refused.body())
                .contains("\"type\":\"/problems/too-many-in-flight\"", "\"limit\":\"account\"", "\"max_in_flight\":2");

        release.countDown();
        for (CompletableFuture<HttpResponse<String>> h : holding) {
            assertThat(h.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(other.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(filter.inFlight("account", "acme"))
                .as("every place given back")
                .isZero();
        assertThat(http.send(request("acme"), HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(200);
    }

    @Test
    void aRequestWithoutAKeyUnderABoundIsNotCountedByIt() throws Exception {
        InFlightLimitFilter filter = InFlightLimitFilter.builder()
                .limit("account", 1, request -> request.getHeader("X-Account"))
                .build();
        server = new TestServer(held, filter);
        release.countDown();

        HttpResponse<String> anonymous =
                http.send(HttpRequest.newBuilder(server.uri("/x")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(anonymous.statusCode()).isEqualTo(200);
    }

    @Test
    void boundsAreCheckedWhenBuilt() {
        assertThatThrownBy(() -> InFlightLimitFilter.builder().limit("account", 0, r -> "a"))
                .hasMessageContaining("max of account must be at least 1");
        assertThatThrownBy(() ->
                        InFlightLimitFilter.builder().limit("a", 1, r -> "a").limit("a", 2, r -> "a"))
                .hasMessageContaining("limit already added: a");
    }

    private HttpRequest request(String account) {
        return HttpRequest.newBuilder(server.uri("/v1/things"))
                .header("X-Account", account)
                .timeout(Duration.ofSeconds(15))
                .build();
    }
}

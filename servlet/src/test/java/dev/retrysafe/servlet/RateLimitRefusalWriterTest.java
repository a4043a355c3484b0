package dev.retrysafe.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.Scope;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A refusal handed to the writer an integration gives ({@link RateLimitFilter.Builder#refusals}):
 * it gets the problem's fields and the headers, answers the request itself, and the request goes
 * no further.
 */
class RateLimitRefusalWriterTest {

    private static final Policy ONE_PER_HOUR = Policy.builder("one")
            .scope(Scope.account())
            .limit(1, Duration.ofHours(1))
            .build();

    private final List<RateLimitRefusal> refusals = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private TestServer server;

    @AfterEach
    void stop() {
        http.close();
        if (server != null) {
            server.close();
        }
    }

    private void start(RateLimitStore store, Policy policy) throws Exception {
        RateLimitFilter filter = RateLimitFilter.builder()
                .store(store)
                .policy(policy)
                .facts(request -> new RequestFacts(null, "acct", null, null, null, 1))
                .refusals((request, response, refusal) -> {
                    refusals.add(refusal);
                    response.setStatus(refusal.type().status());
                    response.getWriter().write("written by the writer");
                })
                .build();
        server = new TestServer(filter, new HttpServlet() {
            @Override
            protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
                response.getWriter().write("ran");
            }
        });
    }

    @Test
    void aRefusalGoesToTheWriterWithTheProblemsFieldsAndHeaders() throws Exception {
        start(InMemoryRateLimitStore.builder().build(), ONE_PER_HOUR);
        assertThat(get().body()).isEqualTo("ran");

        HttpResponse<String> refused = get();

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.body()).isEqualTo("written by the writer");
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(refusals).hasSize(1);
        RateLimitRefusal refusal = refusals.getFirst();
        assertThat(refusal.type()).isEqualTo(ProblemType.RATE_LIMITED);
        assertThat(refusal.typeUri()).isEqualTo("/problems/rate-limited");
        assertThat(refusal.policy()).isEqualTo("one");
        assertThat(refusal.retryAfterSeconds()).isGreaterThanOrEqualTo(1);
        assertThat(refusal.detail())
                .isEqualTo("Rate-limit policy 'one' allows 1 per 1 h; retry in " + refusal.retryAfterSeconds() + " s.");
        assertThat(refusal.members())
                .containsExactly(Map.entry("policy", "one"), Map.entry("retry_after", refusal.retryAfterSeconds()));
        assertThat(refusal.headers())
                .extracting(field -> field.name())
                .contains("RateLimit-Policy", "RateLimit", "Retry-After");
        assertThat(refused.headers().firstValue("RateLimit")).isPresent();
    }

    @Test
    void aFailClosedPolicyThatCannotBeCheckedGoesToTheWriterAs503() throws Exception {
        Policy closed = Policy.builder("closed")
                .scope(Scope.account())
                .limit(1, Duration.ofHours(1))
                .failMode(FailMode.CLOSED)
                .build();
        start(unreachable(closed), closed);

        HttpResponse<String> refused = get();

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refusals).singleElement().satisfies(refusal -> {
            assertThat(refusal.type()).isEqualTo(ProblemType.RATE_LIMIT_UNAVAILABLE);
            assertThat(refusal.policy()).isEqualTo("closed");
            assertThat(refusal.members()).containsOnlyKeys("retry_after");
        });
    }

    /** A store that cannot be reached: every decision is unavailable for the fail-closed policy. */
    private static RateLimitStore unreachable(Policy closed) {
        return new RateLimitStore() {
            @Override
            public Decision decide(String partition, List<Charge> charges) {
                return new Decision.Unavailable(closed, 2, List.of(PolicyState.unknown(closed, partition, 0)));
            }

            @Override
            public Decision peek(String partition, List<Charge> charges) {
                return decide(partition, charges);
            }

            @Override
            public Decision refund(String partition, List<Charge> charges) {
                return decide(partition, charges);
            }

            @Override
            public void close() {}
        };
    }

    private HttpResponse<String> get() throws Exception {
        return http.send(HttpRequest.newBuilder(server.uri("/x")).build(), HttpResponse.BodyHandlers.ofString());
    }
}

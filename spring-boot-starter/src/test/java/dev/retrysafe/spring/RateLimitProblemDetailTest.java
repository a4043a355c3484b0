package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.spring.app.TestApp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * A refusal of {@code @RateLimited} goes through Spring MVC as a {@link ProblemDetail}, over real
 * HTTP on a random port: the body has the Retrysafe server's members, the headers are there on
 * 200s and on the 429 (once each), and an application's advice sees the refusal and changes it.
 */
class RateLimitProblemDetailTest {

    private static final JsonMapper JSON = JsonMapper.builder()
            .addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class)
            .build();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add(
                "spring.datasource.url",
                () -> "jdbc:h2:mem:rlp_" + UUID.randomUUID().toString().replace("-", "")
                        + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1");
    }

    /** Shared by both applications: two reads an hour per caller. */
    abstract static class Client {
        final HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        @LocalServerPort
        int port;

        @AfterEach
        void closeClient() {
            http.close();
        }

        HttpResponse<String> read(String account) throws Exception {
            return http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/payments/p1"))
                            .timeout(Duration.ofSeconds(30))
                            .header("X-Account", account)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> exhaust(String account) throws Exception {
            for (int i = 0; i < 2; i++) {
                String left = Integer.toString(1 - i);
                HttpResponse<String> allowed = read(account);
                assertThat(allowed.statusCode()).isEqualTo(200);
                assertThat(allowed.headers().firstValue("RateLimit-Policy"))
                        .hasValueSatisfying(v -> assertThat(v).contains("\"reads\";q=2;w=3600"));
                assertThat(allowed.headers().firstValue("RateLimit"))
                        .hasValueSatisfying(v -> assertThat(v).contains("r=" + left));
                assertThat(allowed.headers().firstValue("X-RateLimit-Remaining"))
                        .contains(left);
            }
            return read(account);
        }
    }

    @Nested
    @SpringBootTest(
            classes = TestApp.class,
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "retrysafe.rate-limits.policies.reads.quota=2",
                "retrysafe.rate-limits.policies.reads.window=1h",
                "retrysafe.rate-limits.policies.payments.quota=5",
                "retrysafe.rate-limits.policies.payments.window=1h"
            })
    class WithoutAnAdviceOfTheApplications extends Client {

        @Test
        void a429IsAProblemDetailWithTheServersMembersAndItsHeadersOnce() throws Exception {
            HttpResponse<String> refused = exhaust("acct_" + UUID.randomUUID());

            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
            assertThat(refused.headers().allValues("Retry-After"))
                    .singleElement()
                    .satisfies(v -> assertThat(Long.parseLong(v)).isGreaterThanOrEqualTo(1));
            long retryAfter =
                    Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
            for (String name : List.of(
                    "RateLimit-Policy",
                    "RateLimit",
                    "X-RateLimit-Limit",
                    "X-RateLimit-Remaining",
                    "X-RateLimit-Reset")) {
                assertThat(refused.headers().allValues(name)).as(name).hasSize(1);
            }
            assertThat(refused.headers().firstValue("X-RateLimit-Remaining")).contains("0");

            ProblemDetail problem = JSON.readValue(refused.body(), ProblemDetail.class);
            assertThat(problem.getType()).isEqualTo(URI.create("/problems/rate-limited"));
            assertThat(problem.getTitle()).isEqualTo("Too many requests");
            assertThat(problem.getStatus()).isEqualTo(429);
            assertThat(problem.getDetail())
                    .isEqualTo("Rate-limit policy 'reads' allows 2 per 1 h; retry in " + retryAfter + " s.");
            assertThat(problem.getProperties())
                    .containsEntry("retryable", true)
                    .containsEntry("policy", "reads")
                    .containsEntry("retry_after", (int) retryAfter);
            Map<String, Object> members =
                    JSON.readValue(refused.body(), new TypeReference<LinkedHashMap<String, Object>>() {});
            assertThat(members.keySet())
                    .as("the server's members, and the instance Spring MVC gives every ProblemDetail")
                    .containsExactlyInAnyOrder(
                            "type", "title", "status", "detail", "retryable", "policy", "retry_after", "instance");
            assertThat(members).containsEntry("instance", "/v1/payments/p1");
        }
    }

    @Nested
    @SpringBootTest(
            classes = {TestApp.class, AnApplicationsAdvice.class},
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "retrysafe.rate-limits.policies.reads.quota=2",
                "retrysafe.rate-limits.policies.reads.window=1h",
                "retrysafe.rate-limits.policies.payments.quota=5",
                "retrysafe.rate-limits.policies.payments.window=1h"
            })
    class WithAnAdviceOfTheApplications extends Client {

        @Test
        void theApplicationsAdviceForErrorResponseExceptionSeesAndChangesTheRefusal() throws Exception {
            HttpResponse<String> refused = exhaust("acct_" + UUID.randomUUID());

            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
            assertThat(refused.headers().firstValue("X-Seen-By")).contains("advice:reads");
            assertThat(refused.headers().allValues("Retry-After")).hasSize(1);
            assertThat(refused.headers().firstValue("RateLimit")).isPresent();
            ProblemDetail problem = JSON.readValue(refused.body(), ProblemDetail.class);
            assertThat(problem.getTitle()).isEqualTo("Slow down");
            assertThat(problem.getProperties())
                    .containsEntry("support", "https://example.test/limits")
                    .containsEntry("policy", "reads")
                    .containsKey("retry_after");
        }
    }

    @Nested
    @SpringBootTest(
            classes = TestApp.class,
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "spring.messages.basename=retrysafe-test-messages",
                "retrysafe.rate-limits.policies.reads.quota=2",
                "retrysafe.rate-limits.policies.reads.window=1h",
                "retrysafe.rate-limits.policies.payments.quota=5",
                "retrysafe.rate-limits.policies.payments.window=1h"
            })
    class WithTheApplicationsMessages extends Client {

        @Test
        void theTitleAndDetailComeFromTheApplicationsMessages() throws Exception {
            HttpResponse<String> refused = exhaust("acct_" + UUID.randomUUID());

            assertThat(refused.statusCode()).isEqualTo(429);
            long retryAfter =
                    Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
            ProblemDetail problem = JSON.readValue(refused.body(), ProblemDetail.class);
            assertThat(problem.getTitle()).isEqualTo("Slow down, please");
            assertThat(problem.getDetail()).isEqualTo("Policy reads is spent; come back in " + retryAfter + " s.");
            assertThat(problem.getProperties()).containsEntry("policy", "reads");
        }
    }

    /** What an application writes to shape every ErrorResponse of its own (and Retrysafe's) answers. */
    @RestControllerAdvice
    static class AnApplicationsAdvice {
        @ExceptionHandler(ErrorResponseException.class)
        ResponseEntity<ProblemDetail> shaped(ErrorResponseException e) {
            ProblemDetail body = e.getBody();
            if (e instanceof RetrysafeRateLimitedException refused) {
                body.setTitle("Slow down");
                body.setProperty("support", "https://example.test/limits");
                return ResponseEntity.status(e.getStatusCode())
                        .headers(e.getHeaders())
                        .header("X-Seen-By", "advice:" + refused.policy())
                        .body(body);
            }
            return ResponseEntity.status(e.getStatusCode())
                    .headers(e.getHeaders())
                    .body(body);
        }
    }
}

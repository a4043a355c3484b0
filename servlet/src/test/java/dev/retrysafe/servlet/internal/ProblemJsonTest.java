package dev.retrysafe.servlet.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.common.JsonStrings;
import dev.retrysafe.servlet.ProblemType;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ProblemJsonTest {

    @Test
    void rendersTypeTitleStatusDetailAndRetryable() {
        byte[] json = ProblemJson.render(ProblemType.IDEMPOTENCY_KEY_IN_USE, "https://api.example/problems/", "busy");

        assertThat(new String(json, UTF_8))
                .isEqualTo("{\"type\":\"https://api.example/problems/idempotency-key-in-use\","
                        + "\"title\":\"Idempotency-Key in use\",\"status\":409,\"detail\":\"busy\","
                        + "\"retryable\":true}");
    }

    @Test
    void escapesEverythingJsonRequires() {
        StringBuilder out = new StringBuilder();
        JsonStrings.appendDocument(
                out, "q\" b\\ n\n r\r t\t c\u0001 ls\u2028 ok\u00e9 pair\uD83D\uDE00 lone\uD800 end\uDC00");

        assertThat(out)
                .hasToString("\"q\\\" b\\\\ n\\n r\\r t\\t c\\u0001 ls\\u2028 ok\u00e9 pair\uD83D\uDE00"
                        + " lone\\ud800 end\\udc00\"");
    }

    @Test
    void extensionMembersFollowTheStandardOnesWithNumbersUnquoted() {
        String json = new String(
                ProblemJson.render(
                        ProblemType.RATE_LIMITED,
                        "/problems/",
                        "wait",
                        new java.util.LinkedHashMap<>(java.util.Map.of("policy", "key\"1"))),
                java.nio.charset.StandardCharsets.UTF_8);
        String withNumber = new String(
                ProblemJson.render(ProblemType.RATE_LIMITED, "/problems/", "wait", java.util.Map.of("retry_after", 3L)),
                java.nio.charset.StandardCharsets.UTF_8);

        assertThat(json)
                .isEqualTo("{\"type\":\"/problems/rate-limited\",\"title\":\"Too many requests\",\"status\":429,"
                        + "\"detail\":\"wait\",\"retryable\":true,\"policy\":\"key\\\"1\"}");
        assertThat(withNumber).endsWith(",\"retry_after\":3}");
    }

    @Test
    void everyProblemTypeHasAUniqueSlugAndAnErrorStatus() {
        assertThat(Arrays.stream(ProblemType.values()).map(ProblemType::slug))
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrder(
                        "idempotency-key-missing",
                        "idempotency-key-invalid",
                        "idempotency-key-in-use",
                        "idempotency-key-reused",
                        "request-too-large",
                        "request-body-timeout",
                        "request-body-unreadable",
                        "server-busy",
                        "too-many-in-flight",
                        "overloaded",
                        "rate-limited",
                        "concurrency-limited",
                        "rate-limit-unavailable",
                        "webhook-rejected",
                        "service-unavailable",
                        "internal-error");
        assertThat(ProblemType.values())
                .allSatisfy(type -> assertThat(type.status()).isBetween(400, 599));
    }
}

package dev.retrysafe.servlet;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.retrysafe.idempotency.StoredResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdempotencyFilterBuilderTest {

    @Test
    void rejectsBadSettingsNamingTheParameterAndValue() {
        IdempotencyFilter.Builder builder = IdempotencyFilter.builder();

        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.lease(Duration.ZERO))
                .withMessage("lease must be positive: PT0S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.maxBodyBytes(0))
                .withMessageStartingWith("maxBodyBytes must be 1 to")
                .withMessageEndingWith(": 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.problemTypeBase(""))
                .withMessageContaining("problemTypeBase");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.storedHeaders("Bad Header"))
                .withMessageContaining("Bad Header");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.route("POST", "payments", true))
                .withMessageContaining("template")
                .withMessageContaining("payments");
    }

    @Test
    void rejectsARouteAddedTwice() {
        IdempotencyFilter.Builder builder = IdempotencyFilter.builder().route("POST", "/v1/payments", true);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.route("post", "/v1/payments", false))
                .withMessage("route already added: POST /v1/payments");
    }

    @Test
    void rejectsASecondTransformForOneRoute() {
        StoredAnswerTransform same = new StoredAnswerTransform() {
            @Override
            public StoredResponse toStored(HttpServletRequest request, StoredResponse answer) {
                return answer;
            }

            @Override
            public StoredResponse toReplay(HttpServletRequest request, StoredResponse stored) {
                return stored;
            }
        };
        IdempotencyFilter.Builder builder = IdempotencyFilter.builder().storedAnswerTransform("POST", "/v1/keys", same);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.storedAnswerTransform("post", "/v1/keys", same))
                .withMessage("stored answer transform already set: POST /v1/keys");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.storedAnswerTransform("POST", "keys", same))
                .withMessageContaining("template")
                .withMessageContaining("keys");
    }

    @Test
    void requiresDataSourceStoreAndScope() {
        assertThatIllegalStateException()
                .isThrownBy(() -> IdempotencyFilter.builder().build())
                .withMessage("dataSource, store and scope are required; missing: dataSource store scope");
    }
}

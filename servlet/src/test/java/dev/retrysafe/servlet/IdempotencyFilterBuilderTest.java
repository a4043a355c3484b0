package dev.retrysafe.servlet;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class IdempotencyFilterBuilderTest {

    @Test
    void rejectsBadSettingsNamingTheParameterAndValue() {
        IdempotencyFilter.Builder builder = IdempotencyFilter.builder();

        assertThatIllegalArgumentException().isThrownBy(() -> builder.lease(Duration.ZERO))
                .withMessage("lease must be positive: PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.maxBodyBytes(0))
                .withMessageStartingWith("maxBodyBytes must be 1 to").withMessageEndingWith(": 0");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.problemTypeBase(""))
                .withMessageContaining("problemTypeBase");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.storedHeaders("Bad Header"))
                .withMessageContaining("Bad Header");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.route("POST", "payments", true))
                .withMessageContaining("template").withMessageContaining("payments");
    }

    @Test
    void rejectsARouteAddedTwice() {
        IdempotencyFilter.Builder builder = IdempotencyFilter.builder().route("POST", "/v1/payments", true);

        assertThatIllegalArgumentException().isThrownBy(() -> builder.route("post", "/v1/payments", false))
                .withMessage("route already added: POST /v1/payments");
    }

    @Test
    void requiresDataSourceStoreAndScope() {
        assertThatIllegalStateException().isThrownBy(() -> IdempotencyFilter.builder().build())
                .withMessage("dataSource, store and scope are required; missing: dataSource store scope");
    }
}

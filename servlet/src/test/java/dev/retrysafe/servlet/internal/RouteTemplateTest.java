package dev.retrysafe.servlet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RouteTemplateTest {

    @ParameterizedTest(name = "{0} {1} against POST {2}: {3}")
    @CsvSource({
        "POST, /v1/payments, /v1/payments, true",
        "POST, /v1/payments/, /v1/payments, false",
        "GET, /v1/payments, /v1/payments, false",
        "POST, /v1/payments/pay_1/capture, /v1/payments/{id}/capture, true",
        "POST, /v1/payments//capture, /v1/payments/{id}/capture, false",
        "POST, /v1/payments/a/b/capture, /v1/payments/{id}/capture, false",
        "POST, /v1/refunds/pay_1/capture, /v1/payments/{id}/capture, false",
        "POST, /, /, true"
    })
    void matchesMethodAndWholeSegments(String method, String path, String template, boolean matches) {
        assertThat(RouteTemplate.of("POST", template, true).matches(method, path))
                .isEqualTo(matches);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "v1/payments", "/v1/pay ments", "/v1/{id", "/v1/{}", "/v1/x{id}", "/v1/{a}{b}"})
    void rejectsMalformedTemplatesNamingThem(String template) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RouteTemplate.of("POST", template, true))
                .withMessageContaining("template")
                .withMessageContaining(template);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "PO ST", "POST\n"})
    void rejectsMethodsThatAreNotTokens(String method) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RouteTemplate.of(method, "/x", true))
                .withMessageContaining("method");
    }
}

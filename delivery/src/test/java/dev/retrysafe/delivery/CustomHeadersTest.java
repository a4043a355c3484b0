package dev.retrysafe.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.delivery.internal.CustomHeaders;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The rules of an endpoint's custom headers and their stored form, without a database. */
class CustomHeadersTest {

    private static final URI URL = URI.create("https://a.example.com/hooks");
    private static final String VALUE = "key-8f2b1c0d9e";

    @Test
    void aNewEndpointTakesHeadersAndNamesThemOnlyInToString() {
        NewEndpoint e = new NewEndpoint(URL, Set.of("*"), "").withHeaders(Map.of("X-Api-Key", VALUE));

        assertThat(e.headers()).containsExactly(Map.entry("X-Api-Key", VALUE));
        assertThat(e.toString()).contains("X-Api-Key").doesNotContain(VALUE);
        assertThat(EndpointUpdate.builder()
                        .headers(Map.of("X-Api-Key", VALUE))
                        .build()
                        .toString())
                .contains("X-Api-Key")
                .doesNotContain(VALUE);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "webhook-id",
                "Webhook-Signature",
                "WEBHOOK-TIMESTAMP",
                "Content-Type",
                "content-length",
                "Host",
                "Transfer-Encoding",
                "Connection",
                "Upgrade",
                "TE",
                "Trailer",
                "Expect",
                "Keep-Alive",
                "Proxy-Authorization",
                "proxy-connection",
                "traceparent",
                "Tracestate",
                "User-Agent"
            })
    void namesTheDispatcherSetsItselfAreRefused(String name) {
        assertThatThrownBy(() -> CustomHeaders.check("headers", Map.of(name, VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("headers: header " + name + " is set by the dispatcher")
                .hasMessageNotContaining(VALUE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "X Api", "X-Api:", "Ünicode", "X(Api)"})
    void namesThatAreNotTokensAreRefused(String name) {
        assertThatThrownBy(() -> CustomHeaders.check("headers", Map.of(name, VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a header name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a\r\nX-Injected: 1", "a\nb", "nul\u0000", "é", " leading", "trailing "})
    void valuesWithControlsOrOutsideAsciiAreRefusedWithoutBeingQuoted(String value) {
        assertThatThrownBy(() -> CustomHeaders.check("headers", Map.of("X-Api-Key", value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the value of header X-Api-Key must be")
                .satisfies(e -> {
                    if (!value.isBlank()) {
                        assertThat(e.getMessage()).doesNotContain(value);
                    }
                });
    }

    @Test
    void atMostTwentyHeadersAndNoNameTwiceInAnyCase() {
        Map<String, String> many = new LinkedHashMap<>();
        IntStream.range(0, CustomHeaders.MAX_COUNT).forEach(i -> many.put("X-H" + i, "v"));
        assertThat(CustomHeaders.check("headers", many)).hasSize(CustomHeaders.MAX_COUNT);
        many.put("X-One-Too-Many", "v");
        assertThatThrownBy(() -> CustomHeaders.check("headers", many))
                .hasMessageContaining("headers: at most 20 headers");

        Map<String, String> twice = new LinkedHashMap<>();
        twice.put("X-Api-Key", "a");
        twice.put("x-api-key", "b");
        assertThatThrownBy(() -> CustomHeaders.check("headers", twice)).hasMessageContaining("given twice");
        assertThatThrownBy(() -> CustomHeaders.check("headers", Map.of("X-Long", "v".repeat(513))))
                .hasMessageContaining("1 to 512 characters");
    }

    @Test
    void theStoredFormGivesBackEveryHeaderInOrderAndItsNames() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Api-Key", "a: b, c=d;\te");
        headers.put("x-tenant", "t1");
        String stored = CustomHeaders.encode(CustomHeaders.check("headers", headers));

        assertThat(CustomHeaders.decode(stored)).containsExactlyEntriesOf(headers);
        assertThat(CustomHeaders.names(stored)).containsExactly("X-Api-Key", "x-tenant");
        assertThat(CustomHeaders.encode(Map.of())).isNull();
        assertThat(CustomHeaders.decode(null)).isEmpty();
    }
}

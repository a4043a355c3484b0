package dev.retrysafe.idempotency;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.idempotency.internal.CanonicalJson;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class FingerprintTest {

    private static Fingerprint post(String body) {
        return Fingerprint.of("POST", "/v1/payments", body.getBytes(UTF_8));
    }

    private static String canonical(String json) {
        byte[] c = CanonicalJson.canonicalize(json.getBytes(UTF_8));
        return c == null ? "<not canonical>" : new String(c, UTF_8);
    }

    static Stream<Arguments> sameRequests() {
        return Stream.of(
                Arguments.of(
                        "{\"amount\":500,\"currency\":\"eur\"}", "{ \"currency\" : \"eur\",\n\t\"amount\" : 500 }"),
                Arguments.of("{\"a\":\"A\"}", "{\"a\":\"\\u0041\"}"),
                Arguments.of("{\"A\":1}", "{\"\\u0041\":1}"),
                Arguments.of("[\"/\"]", "[\"\\/\"]"),
                Arguments.of("[\"\u00e9\"]", "[\"\\u00E9\"]"),
                Arguments.of("[\"\uD83D\uDE00\"]", "[\"\\ud83d\\uDE00\"]"),
                Arguments.of("[1e5]", "[1E+05]"),
                Arguments.of("[1e-5]", "[1E-005]"),
                Arguments.of(
                        "{\"b\":{\"y\":[1,2],\"x\":null},\"a\":true}", "{\"a\":true,\"b\":{\"x\":null,\"y\":[1,2]}}"),
                Arguments.of("\"top level string\"", "  \"top level string\"  "));
    }

    @ParameterizedTest(name = "[{index}] {0} == {1}")
    @MethodSource("sameRequests")
    void reserialisedJsonIsTheSameRequest(String a, String b) {
        assertThat(post(a)).isEqualTo(post(b));
    }

    static Stream<Arguments> differentRequests() {
        return Stream.of(
                Arguments.of("{\"amount\":500}", "{\"amount\":501}"),
                Arguments.of("{\"amount\":500}", "{\"amount\":\"500\"}"),
                Arguments.of("[1,2]", "[2,1]"),
                Arguments.of("[1.0]", "[1]"),
                Arguments.of("{\"a\":null}", "{}"),
                Arguments.of("[\"a\"]", "[\"A\"]"),
                Arguments.of("{\"a\":1}", "{\"a\":1} x"));
    }

    @ParameterizedTest(name = "[{index}] {0} != {1}")
    @MethodSource("differentRequests")
    void differentValuesAreDifferentRequests(String a, String b) {
        assertThat(post(a)).isNotEqualTo(post(b));
    }

    @Test
    void methodAndRouteArePartOfTheFingerprint() {
        byte[] body = "{}".getBytes(UTF_8);
        Fingerprint base = Fingerprint.of("POST", "/v1/payments", body);
        assertThat(Fingerprint.of("PUT", "/v1/payments", body)).isNotEqualTo(base);
        assertThat(Fingerprint.of("POST", "/v1/refunds", body)).isNotEqualTo(base);
        // length prefixes: moving a character between fields changes the hash
        assertThat(Fingerprint.of("POST/", "v1/payments", body)).isNotEqualTo(base);
        assertThat(base.hex()).matches("[0-9a-f]{64}");
    }

    @Test
    void canonicalFormSortsByCodePointAndEscapesOneWay() {
        assertThat(canonical("{\"b\":1,\"a\":2,\"\uD83D\uDE00\":3,\"\uFFFD\":4}"))
                .as("U+1F600 sorts after U+FFFD by code point, though its UTF-16 units sort before")
                .isEqualTo("{\"a\":2,\"b\":1,\"\uFFFD\":4,\"\uD83D\uDE00\":3}");
        assertThat(canonical("[\"\\u0000\\u001f\\b\\f\\n\\r\\t\\\"\\\\\\u007f\"]"))
                .isEqualTo("[\"\\u0000\\u001f\\b\\f\\n\\r\\t\\\"\\\\\u007f\"]");
        assertThat(canonical("[\"\\ud800\"]"))
                .as("a lone surrogate stays escaped")
                .isEqualTo("[\"\\ud800\"]");
        assertThat(canonical("[-0, 0.50, 1E+00, 2e-0]")).isEqualTo("[-0,0.50,1e0,2e0]");
    }

    @ParameterizedTest(name = "[{index}] <{0}>")
    @ValueSource(
            strings = {
                "",
                " ",
                "{",
                "}",
                "[1,]",
                "{\"a\":1,}",
                "{\"a\" 1}",
                "{a:1}",
                "01",
                "1.",
                ".5",
                "-",
                "1e",
                "+1",
                "tru",
                "nul",
                "[\"\t\"]",
                "[\"\\x\"]",
                "[\"\\u12\"]",
                "[\"\\u00G1\"]",
                "[1] [2]",
                "{\"a\":1,\"a\":2}",
                "{\"a\":1,\"\\u0061\":2}",
                "\uFEFF{}",
                "NaN",
                "[Infinity]"
            })
    void invalidJsonFallsBackToRawBytes(String body) {
        assertThat(CanonicalJson.canonicalize(body.getBytes(UTF_8))).isNull();
        assertThat(post(body)).isEqualTo(post(body));
        assertThat(post(body)).isNotEqualTo(post(body + " "));
    }

    @Test
    void rawFallbackNeverEqualsJsonFingerprint() {
        // "{}" canonicalises to itself, so only the domain tag keeps these apart
        byte[] notUtf8 = {(byte) 0xC3, (byte) 0x28};
        assertThat(Fingerprint.of("POST", "/x", notUtf8))
                .isNotEqualTo(Fingerprint.of("POST", "/x", "{}".getBytes(UTF_8)));
        assertThat(CanonicalJson.canonicalize(notUtf8)).isNull();
    }

    @Test
    void nestingIsBoundedWithoutOverflowingTheStack() {
        int max = Fingerprint.MAX_JSON_DEPTH;
        assertThat(canonical("[".repeat(max) + "]".repeat(max))).isEqualTo("[".repeat(max) + "]".repeat(max));
        assertThat(CanonicalJson.canonicalize(("[".repeat(max + 1) + "]".repeat(max + 1)).getBytes(UTF_8)))
                .isNull();
        assertThat(CanonicalJson.canonicalize("[".repeat(1_000_000).getBytes(UTF_8)))
                .isNull();
        assertThat(CanonicalJson.canonicalize("{\"a\":".repeat(1_000_000).getBytes(UTF_8)))
                .isNull();
    }
}

package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Request bodies are UTF-8 and nothing else: any other encoding, or bytes UTF-8 does not allow,
 * answer {@code 400 malformed-json} saying so, and nothing is written; the same request in UTF-8
 * under a new key then succeeds (regression: a UTF-16LE body with a byte order mark made a payment).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Utf8BodyTest {

    private static final byte[] UTF16_LE_BOM = {(byte) 0xFF, (byte) 0xFE};
    private static final byte[] UTF16_BE_BOM = {(byte) 0xFE, (byte) 0xFF};
    private static final byte[] UTF32_LE_BOM = {(byte) 0xFF, (byte) 0xFE, 0, 0};
    private static final byte[] UTF32_BE_BOM = {0, 0, (byte) 0xFE, (byte) 0xFF};
    private static final byte[] UTF8_BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    /** Where a byte spliced into {@link #json}'s description lands: after {@code {"amount": N, "currency": "eur", "description": "}. */
    private static final int DESCRIPTION_AT = 53;

    private TestServer server;
    private Api api;

    @BeforeAll
    void start() {
        server = TestServer.h2().start();
        api = Api.of(server);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    /** A payment body of exactly {@link #DESCRIPTION_AT} bytes before its description's text (amounts of 5 digits). */
    private static String json(int amount, String description) {
        return "{\"amount\": " + amount + ", \"currency\": \"eur\", \"description\": \"" + description + "\"}";
    }

    static Stream<Arguments> notUtf8() {
        return Stream.of(
                Arguments.of(
                        "UTF-16LE with BOM",
                        10_001,
                        encoded(UTF16_LE_BOM, "UTF-16LE", 10_001),
                        "UTF-16 (little-endian) byte order mark"),
                Arguments.of(
                        "UTF-16BE with BOM",
                        10_002,
                        encoded(UTF16_BE_BOM, "UTF-16BE", 10_002),
                        "UTF-16 (big-endian) byte order mark"),
                Arguments.of(
                        "UTF-32LE with BOM",
                        10_003,
                        encoded(UTF32_LE_BOM, "UTF-32LE", 10_003),
                        "UTF-32 (little-endian) byte order mark"),
                Arguments.of(
                        "UTF-32BE with BOM",
                        10_004,
                        encoded(UTF32_BE_BOM, "UTF-32BE", 10_004),
                        "UTF-32 (big-endian) byte order mark"),
                Arguments.of(
                        "UTF-16LE without BOM",
                        10_005,
                        encoded(new byte[0], "UTF-16LE", 10_005),
                        "a NUL byte at offset 1 "),
                Arguments.of(
                        "UTF-16BE without BOM",
                        10_006,
                        encoded(new byte[0], "UTF-16BE", 10_006),
                        "a NUL byte at offset 0 "),
                Arguments.of(
                        "UTF-32LE without BOM",
                        10_007,
                        encoded(new byte[0], "UTF-32LE", 10_007),
                        "a NUL byte at offset 1 "),
                Arguments.of(
                        "Latin-1",
                        10_008,
                        json(10_008, "caf\u00e9").getBytes(StandardCharsets.ISO_8859_1),
                        "an invalid byte 0xE9 at offset " + (DESCRIPTION_AT + 3)),
                Arguments.of(
                        "a stray continuation byte",
                        10_009,
                        spliced(10_009, 0x80),
                        "an invalid byte 0x80 at offset " + DESCRIPTION_AT),
                Arguments.of(
                        "a truncated sequence",
                        10_010,
                        spliced(10_010, 0xE2, 0x82),
                        "an invalid byte 0xE2 at offset " + DESCRIPTION_AT),
                Arguments.of(
                        "an overlong '/'",
                        10_011,
                        spliced(10_011, 0xC0, 0xAF),
                        "an invalid byte 0xC0 at offset " + DESCRIPTION_AT),
                Arguments.of(
                        "an overlong NUL",
                        10_012,
                        spliced(10_012, 0xE0, 0x80, 0x80),
                        "an invalid byte 0xE0 at offset " + DESCRIPTION_AT),
                Arguments.of(
                        "a lone high surrogate (U+D800)",
                        10_013,
                        spliced(10_013, 0xED, 0xA0, 0x80),
                        "an invalid byte 0xED at offset " + DESCRIPTION_AT),
                Arguments.of(
                        "a lone low surrogate (U+DC00)",
                        10_014,
                        spliced(10_014, 0xED, 0xB0, 0x80),
                        "an invalid byte 0xED at offset " + DESCRIPTION_AT),
                Arguments.of(
                        "a code point past U+10FFFF",
                        10_015,
                        spliced(10_015, 0xF4, 0x90, 0x80, 0x80),
                        "an invalid byte 0xF4 at offset " + DESCRIPTION_AT));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("notUtf8")
    void aBodyThatIsNotUtf8IsMalformedJsonAndWritesNothing(String what, int amount, byte[] body, String reason) {
        int before = payments().size();

        Api.Answer refused = post(body, UUID.randomUUID().toString());

        assertThat(refused.status()).as(refused.raw().body()).isEqualTo(400);
        assertThat(refused.body().get("type").asText()).isEqualTo("/problems/malformed-json");
        assertThat(refused.body().get("detail").asText())
                .startsWith("The body must be UTF-8: ")
                .contains(reason);
        List<JsonNode> after = payments();
        assertThat(after)
                .as("payments after the refusal")
                .hasSize(before)
                .noneSatisfy(p -> assertThat(p.get("amount").asInt()).isEqualTo(amount));

        Api.Answer utf8 = post(
                json(amount, "caf\u00e9").getBytes(StandardCharsets.UTF_8),
                UUID.randomUUID().toString());

        assertThat(utf8.status()).as(utf8.raw().body()).isEqualTo(201);
        assertThat(payments())
                .hasSize(before + 1)
                .anySatisfy(p -> assertThat(p.get("amount").asInt()).isEqualTo(amount));
    }

    /**
     * What the idempotency filter does with the refusal: a 400 is an answer below 500, so it is
     * stored as the key's answer and replayed; the UTF-8 body is another request under that key.
     */
    @Test
    void theRefusalIsTheKeysStoredAnswerSoTheFixedBodyNeedsANewKey() {
        String key = UUID.randomUUID().toString();
        byte[] utf16 = encoded(UTF16_LE_BOM, "UTF-16LE", 10_101);

        Api.Answer first = post(utf16, key);
        Api.Answer again = post(utf16, key);
        Api.Answer fixedUnderTheSameKey = post(json(10_101, "caf\u00e9").getBytes(StandardCharsets.UTF_8), key);

        assertThat(first.status()).isEqualTo(400);
        assertThat(again.status()).isEqualTo(400);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.body().get("type").asText()).isEqualTo("/problems/malformed-json");
        assertThat(fixedUnderTheSameKey.status()).isEqualTo(422);
        assertThat(fixedUnderTheSameKey.body().get("type").asText()).isEqualTo("/problems/idempotency-key-reused");
        assertThat(payments())
                .noneSatisfy(p -> assertThat(p.get("amount").asInt()).isEqualTo(10_101));
    }

    /** RFC 8259 lets a parser ignore a UTF-8 byte order mark; this server does, and keeps every character. */
    @Test
    void aUtf8ByteOrderMarkIsIgnoredAndCharactersBeyondAsciiArriveIntact() {
        String description = "caf\u00e9 \u2713 \ud83d\ude00";
        byte[] body = concat(UTF8_BOM, json(10_201, description).getBytes(StandardCharsets.UTF_8));

        Api.Answer a = post(body, UUID.randomUUID().toString());

        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        assertThat(a.body().get("description").asText()).isEqualTo(description);
    }

    /** Every route that reads a body refuses one that is not UTF-8, before its own checks. */
    @ParameterizedTest
    @ValueSource(strings = {"/v1/refunds", "/v1/reports", "/v1/webhook_endpoints"})
    void everyRouteWithABodyRefusesOneThatIsNotUtf8(String path) {
        byte[] body = concat(UTF16_LE_BOM, "{\"kind\": \"payments_csv\"}".getBytes(StandardCharsets.UTF_16LE));

        Api.Answer a = api.send("POST", path, "application/json", body);

        assertThat(a.status()).as(a.raw().body()).isEqualTo(400);
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/malformed-json");
        assertThat(a.body().get("detail").asText()).startsWith("The body must be UTF-8: ");
    }

    private Api.Answer post(byte[] body, String key) {
        return api.send(api.request("/v1/payments")
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build());
    }

    private List<JsonNode> payments() {
        List<JsonNode> all = new ArrayList<>();
        api.get("/v1/payments?limit=100").body().get("data").forEach(all::add);
        assertThat(all).as("this class makes fewer than 100 payments").hasSizeLessThan(100);
        return all;
    }

    private static byte[] encoded(byte[] bom, String charset, int amount) {
        return concat(bom, json(amount, "caf\u00e9").getBytes(Charset.forName(charset)));
    }

    /** A UTF-8 payment body with {@code bytes} at the start of its description. */
    private static byte[] spliced(int amount, int... bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] head = json(amount, "").getBytes(StandardCharsets.UTF_8);
        out.write(head, 0, DESCRIPTION_AT);
        for (int b : bytes) {
            out.write(b);
        }
        out.write(head, DESCRIPTION_AT, head.length - DESCRIPTION_AT);
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

package dev.retrysafe.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {

    @Test
    void readsEveryKindOfValue() {
        Object v = Json.parse(" {\"s\":\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\",\"i\":-42,\"big\":12345678901234567890,"
                + "\"d\":1.5e3,\"t\":true,\"f\":false,\"n\":null,\"a\":[1,[],{}],\"o\":{\"x\":{}}} ");
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("s", "a\"b\\c\né😀");
        expected.put("i", -42L);
        expected.put("big", new BigDecimal("12345678901234567890"));
        expected.put("d", new BigDecimal("1.5e3"));
        expected.put("t", true);
        expected.put("f", false);
        expected.put("n", null);
        expected.put("a", List.of(1L, List.of(), Map.of()));
        expected.put("o", Map.of("x", Map.of()));
        assertThat(v).isEqualTo(expected);
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(
            strings = {
                "",
                "{",
                "{\"a\":}",
                "{\"a\":1,}",
                "[1,]",
                "01",
                "1.",
                "-",
                "\"\\x\"",
                "\"tab\there\"",
                "tru",
                "{\"a\":1}x",
                "{'a':1}",
                "{\"a\":1,\"a\":2}",
                "NaN",
                "\"\\u12\""
            })
    void rejectsWhatIsNotJson(String text) {
        assertThatThrownBy(() -> Json.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("invalid JSON: expected");
    }

    @Test
    void refusesDeepNesting() {
        String deep = "[".repeat(100) + "]".repeat(100);
        assertThatThrownBy(() -> Json.parse(deep)).hasMessageContaining("levels of nesting");
        assertThat(Json.parse("[".repeat(60) + "]".repeat(60))).isNotNull();
    }

    @Test
    void writesCompactJsonThatReadsBack() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("amount", 500L);
        value.put("currency", "eur");
        value.put("description", "a \"quoted\" line\nand\u0001 control");
        value.put("list", List.of("x", 2, true));
        value.put("none", null);
        String text = Json.write(value);
        assertThat(text)
                .isEqualTo(
                        "{\"amount\":500,\"currency\":\"eur\",\"description\":\"a \\\"quoted\\\" line\\nand\\u0001 control\","
                                + "\"list\":[\"x\",2,true],\"none\":null}");
        Map<String, Object> back = new LinkedHashMap<>(value);
        back.put("list", List.of("x", 2L, true));
        assertThat(Json.parse(text)).isEqualTo(back);
    }

    static LongStream seeds() {
        long base = System.nanoTime();
        return LongStream.range(0, 50).map(i -> base + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomDocumentsSurviveAWriteAndARead(long seed) {
        Random random = new Random(seed);
        Object doc = randomValue(random, 0);
        assertThat(Json.parse(Json.write(doc))).as("seed " + seed).isEqualTo(doc);
    }

    private static Object randomValue(Random random, int depth) {
        int kind = random.nextInt(depth > 4 ? 4 : 6);
        return switch (kind) {
            case 0 -> random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L);
            case 1 -> randomString(random);
            case 2 -> random.nextBoolean();
            case 3 -> new BigDecimal(random.nextInt(100_000) + "." + (1 + random.nextInt(9)));
            case 4 -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = random.nextInt(5); i > 0; i--) {
                    m.put(randomString(random), randomValue(random, depth + 1));
                }
                yield m;
            }
            default ->
                Arrays.asList(random.ints(random.nextInt(5))
                        .mapToObj(i -> randomValue(random, depth + 1))
                        .toArray());
        };
    }

    private static String randomString(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(12); i > 0; i--) {
            s.append((char) (random.nextBoolean() ? random.nextInt(0x20, 0x7f) : random.nextInt(0, 0xd7ff)));
        }
        return s.toString();
    }
}

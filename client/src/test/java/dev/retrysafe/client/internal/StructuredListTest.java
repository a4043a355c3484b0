package dev.retrysafe.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.StructuredFields;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The client's small List parser agrees with the strict testkit parser on what it keeps. */
class StructuredListTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "\"default\";r=50;t=30",
                "\"key\";r=97;t=1, \"account\";r=996;t=1",
                "tok;a=1;b=?0;c=\"x\\\"y\";d=-12;e=1.25;f",
                "(\"a\" b);q=1, c;r=0",
                "\"x\";pk=:aGVsbG8=:;r=0;t=1",
                "  \"lead\";r=1 ,\t\"tab\";r=2"
            })
    void agreesWithTheStrictParser(String value) {
        List<StructuredList.Member> ours = StructuredList.parse(value);
        List<StructuredFields.Member> strict = StructuredFields.parseList(value.strip());
        assertThat(ours).hasSameSizeAs(strict);
        for (int i = 0; i < strict.size(); i++) {
            Map<String, Object> expected = new java.util.LinkedHashMap<>();
            strict.get(i).parameters().forEach((k, v) -> expected.put(k, simple(v)));
            assertThat(ours.get(i).parameters()).as("member " + i).isEqualTo(expected);
        }
    }

    private static Object simple(Object v) {
        if (v instanceof StructuredFields.Token t) {
            return t.value();
        }
        if (v instanceof StructuredFields.ByteSequence b) {
            return java.util.Base64.getEncoder().encodeToString(b.bytes());
        }
        return v;
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(
            strings = {
                "a,",
                "a;",
                "a;R=1",
                "\"open",
                "a;b=1.2345",
                "a;b=1234567890123456",
                "a b",
                "(a",
                "a;b=\"\u00e9\""
            })
    void rejectsWhatIsNotAList(String value) {
        assertThat(StructuredList.parse(value)).isNull();
    }

    @Test
    void readsIntegersAndDecimals() {
        List<StructuredList.Member> m = StructuredList.parse("x;r=-3;d=0.5");
        assertThat(m).hasSize(1);
        assertThat(m.getFirst().integer("r")).isEqualTo(-3L);
        assertThat(m.getFirst().parameters().get("d")).isEqualTo(new BigDecimal("0.5"));
        assertThat(m.getFirst().integer("d")).isNull();
    }

    @Test
    void ignoresFieldsLongerThanTheLimit() {
        assertThat(StructuredList.parse("a;r=1, ".repeat(1000) + "b")).isNull();
    }
}

package dev.retrysafe.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.StructuredFields.ByteSequence;
import dev.retrysafe.testkit.StructuredFields.Date;
import dev.retrysafe.testkit.StructuredFields.DisplayString;
import dev.retrysafe.testkit.StructuredFields.InnerList;
import dev.retrysafe.testkit.StructuredFields.Item;
import dev.retrysafe.testkit.StructuredFields.Member;
import dev.retrysafe.testkit.StructuredFields.Token;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StructuredFieldsTest {

    @Test
    void parsesTheRateLimitPolicyExampleOfTheDraft() {
        List<Member> list = StructuredFields.parseList("\"burst\";q=100;w=60,\"daily\";q=1000;w=86400");

        assertThat(list).hasSize(2);
        Item burst = (Item) list.get(0);
        assertThat(burst.value()).isEqualTo("burst");
        assertThat(burst.parameters()).containsExactly(Map.entry("q", 100L), Map.entry("w", 60L));
        assertThat(((Item) list.get(1)).parameter("q")).isEqualTo(1000L);
    }

    @Test
    void parsesEveryBareItemType() {
        Item item = StructuredFields.parseItem(
                "tok/en:x;s=\"a \\\"q\\\" \\\\\";i=-42;d=3.141;t;f=?0;b=:aGk=:;at=@1700000000;ds=%\"f%c3%bc\"");

        assertThat(item.value()).isEqualTo(new Token("tok/en:x"));
        assertThat(item.parameters())
                .containsExactly(
                        Map.entry("s", "a \"q\" \\"),
                        Map.entry("i", -42L),
                        Map.entry("d", new BigDecimal("3.141")),
                        Map.entry("t", true),
                        Map.entry("f", false),
                        Map.entry("b", new ByteSequence("hi".getBytes(StandardCharsets.US_ASCII))),
                        Map.entry("at", new Date(1_700_000_000L)),
                        Map.entry("ds", new DisplayString("f\u00fc")));
    }

    @Test
    void parsesInnerListsAndSpacing() {
        List<Member> list = StructuredFields.parseList("  (\"a\" b);x=1 ,\t?1");

        assertThat(list).hasSize(2);
        InnerList inner = (InnerList) list.get(0);
        assertThat(inner.items()).extracting(Item::value).containsExactly("a", new Token("b"));
        assertThat(inner.parameters()).containsEntry("x", 1L);
        assertThat(((Item) list.get(1)).value()).isEqualTo(true);
    }

    @Test
    void parsesDictionariesKeepingTheLastOfARepeatedKey() {
        Map<String, Member> dict = StructuredFields.parseDictionary("a=1, b;p, a=2");

        assertThat(dict.keySet()).containsExactly("b", "a");
        assertThat(((Item) dict.get("a")).value()).isEqualTo(2L);
        assertThat(((Item) dict.get("b")).value()).isEqualTo(true);
        assertThat(dict.get("b").parameters()).containsEntry("p", true);
    }

    @Test
    void anEmptyListIsEmpty() {
        assertThat(StructuredFields.parseList("")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "\"unterminated",
                "\"bad \\n escape\"",
                "1234567890123456",
                "1.2345",
                "1.",
                "1234567890123.5",
                "?2",
                ":not base64!:",
                "a,",
                "a b",
                "\"x\";Key=1",
                "(a b",
                "%\"%C3\"",
                "\"tab\there\"",
                "-"
            })
    void rejectsMalformedValues(String value) {
        assertThatThrownBy(() -> StructuredFields.parseList(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("position");
    }

    @Test
    void rejectsTrailingInputAfterAnItem() {
        assertThatThrownBy(() -> StructuredFields.parseItem("1 2")).isInstanceOf(IllegalArgumentException.class);
    }
}

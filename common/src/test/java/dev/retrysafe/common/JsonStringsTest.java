package dev.retrysafe.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonStringsTest {

    @Test
    void escapesQuotesBackslashesAndControlCharacters() {
        assertThat(JsonStrings.quoted("a\"b\\c\n\t\u0001")).isEqualTo("\"a\\\"b\\\\c\\n\\t\\u0001\"");
    }

    @Test
    void keepsPairedSurrogatesAndEscapesLoneOnes() {
        assertThat(JsonStrings.quoted("\uD83D\uDE00")).isEqualTo("\"\uD83D\uDE00\"");
        assertThat(JsonStrings.quoted("x\uD83Dy")).isEqualTo("\"x\\ud83dy\"");
    }

    @Test
    void ordersByCodePoint() {
        assertThat(JsonStrings.compareCodePoints("\uFFFF", "\uD83D\uDE00")).isNegative();
        assertThat(JsonStrings.compareCodePoints("a", "ab")).isNegative();
        assertThat(JsonStrings.compareCodePoints("b", "b")).isZero();
    }
}

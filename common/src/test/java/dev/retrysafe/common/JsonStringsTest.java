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
    void documentFormAlsoEscapesLineAndParagraphSeparators() {
        assertThat(JsonStrings.document("a\u2028b\u2029c")).isEqualTo("\"a\\u2028b\\u2029c\"");
        assertThat(JsonStrings.quoted("a\u2028b\u2029c")).isEqualTo("\"a\u2028b\u2029c\"");
    }

    @Test
    void documentFormIsOtherwiseTheCanonicalOne() {
        String nasty = "q\" b\\ n\n r\r t\t b\b f\f c\u0001 d\u007f \u00e9 \uD83D\uDE00 lone\uD800 end\uDC00";
        assertThat(JsonStrings.document(nasty))
                .isEqualTo(JsonStrings.quoted(nasty))
                .isEqualTo("\"q\\\" b\\\\ n\\n r\\r t\\t b\\b f\\f c\\u0001 d\u007f \u00e9 \uD83D\uDE00"
                        + " lone\\ud800 end\\udc00\"");
    }

    @Test
    void ordersByCodePoint() {
        assertThat(JsonStrings.compareCodePoints("\uFFFF", "\uD83D\uDE00")).isNegative();
        assertThat(JsonStrings.compareCodePoints("a", "ab")).isNegative();
        assertThat(JsonStrings.compareCodePoints("b", "b")).isZero();
    }
}

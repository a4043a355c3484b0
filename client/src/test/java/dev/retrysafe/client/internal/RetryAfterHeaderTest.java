package dev.retrysafe.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every row of the {@code Retry-After} table in {@code RetryPolicy} and docs/client.md. */
class RetryAfterHeaderTest {

    /** Sunday 1994-11-06 08:49:37 UTC, RFC 9110's example date. */
    private static final Instant EXAMPLE = Instant.parse("1994-11-06T08:49:37Z");

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void delaySecondsAreSeconds() {
        assertThat(RetryAfterHeader.delay("120", NOW)).isEqualTo(Duration.ofSeconds(120));
        assertThat(RetryAfterHeader.delay(" 1 ", NOW)).isEqualTo(Duration.ofSeconds(1));
        assertThat(RetryAfterHeader.delay("0", NOW)).isEqualTo(Duration.ZERO);
        assertThat(RetryAfterHeader.delay("007", NOW)).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void allThreeDateFormsAreRead() {
        Instant before = EXAMPLE.minusSeconds(90);
        assertThat(RetryAfterHeader.delay("Sun, 06 Nov 1994 08:49:37 GMT", before))
                .isEqualTo(Duration.ofSeconds(90));
        assertThat(RetryAfterHeader.delay("Sunday, 06-Nov-94 08:49:37 GMT", before))
                .isEqualTo(Duration.ofSeconds(90));
        assertThat(RetryAfterHeader.delay("Sun Nov  6 08:49:37 1994", before)).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void aDateInTheFutureIsTheTimeUntilIt() {
        assertThat(RetryAfterHeader.delay("Thu, 01 Jan 2026 00:00:05 GMT", NOW)).isEqualTo(Duration.ofSeconds(5));
        assertThat(RetryAfterHeader.delay("Thu, 1 Jan 2026 00:00:05 GMT", NOW))
                .as("one-digit day")
                .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aDateNowOrInThePastIsZero() {
        assertThat(RetryAfterHeader.delay("Thu, 01 Jan 2026 00:00:00 GMT", NOW)).isEqualTo(Duration.ZERO);
        assertThat(RetryAfterHeader.delay("Wed, 31 Dec 2025 23:00:00 GMT", NOW)).isEqualTo(Duration.ZERO);
        assertThat(RetryAfterHeader.delay("Sun, 06 Nov 1994 08:49:37 GMT", NOW)).isEqualTo(Duration.ZERO);
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(
            strings = {
                "-5",
                "-0",
                "+5",
                "1.5",
                "1e3",
                "soon",
                "",
                "  ",
                "5 s",
                "0x10",
                "Thu, 01 Jan 2026 00:00:05 CET",
                "Thu, 31 Feb 2026 00:00:05 GMT",
                "Thu, 01 Jan 2026 25:00:05 GMT",
                "2026-01-01T00:00:05Z",
                "thu, 01 jan 2026 00:00:05 gmt",
                "Thu, 001 Jan 2026 00:00:05 GMT",
                "Fri, 01 Jan 2026 00:00:05 GMT"
            })
    void negativeOrMalformedValuesAreIgnored(String value) {
        assertThat(RetryAfterHeader.delay(value, NOW)).isNull();
    }

    @Test
    void hugeValuesSaturateInsteadOfOverflowing() {
        assertThat(RetryAfterHeader.delay("99999999999999999999", NOW)).isEqualTo(RetryAfterHeader.SATURATED);
        assertThat(RetryAfterHeader.delay("9223372036854775807", NOW)).isEqualTo(RetryAfterHeader.SATURATED);
        assertThat(RetryAfterHeader.delay("999999999999999999", NOW))
                .isEqualTo(Duration.ofSeconds(999_999_999_999_999_999L));
        assertThat(RetryAfterHeader.delay("Fri, 31 Dec 9999 23:59:59 GMT", NOW))
                .isEqualTo(Duration.between(NOW, Instant.parse("9999-12-31T23:59:59Z")));
    }

    @Test
    void ofSeveralValuesTheLongestReadableOneCounts() {
        assertThat(RetryAfterHeader.delay(List.of("2", "soon", "7", "Thu, 01 Jan 2026 00:00:05 GMT"), NOW))
                .isEqualTo(Duration.ofSeconds(7));
        assertThat(RetryAfterHeader.delay(List.of("soon", "-1"), NOW)).isNull();
        assertThat(RetryAfterHeader.delay(List.of(), NOW)).isNull();
    }

    @Test
    void twoDigitYearsMoreThanFiftyYearsAheadAreInThePastCentury() {
        Instant in2026 = Instant.parse("2026-06-01T00:00:00Z");
        assertThat(RetryAfterHeader.fullYear(94, in2026)).isEqualTo(1994);
        assertThat(RetryAfterHeader.fullYear(26, in2026)).isEqualTo(2026);
        assertThat(RetryAfterHeader.fullYear(76, in2026)).isEqualTo(2076);
        assertThat(RetryAfterHeader.fullYear(77, in2026)).isEqualTo(1977);
        assertThat(RetryAfterHeader.fullYear(0, Instant.parse("2099-06-01T00:00:00Z")))
                .isEqualTo(2100);
    }
}

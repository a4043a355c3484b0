package dev.retrysafe.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {

    private static final Instant NOW = Instant.parse("1994-11-06T08:49:00Z");

    @ParameterizedTest
    @CsvSource({
        "0, PT0S",
        "120, PT2M",
        " 3600 , PT1H",
        "'Sun, 06 Nov 1994 08:49:37 GMT', PT37S",
        "'Sunday, 06-Nov-94 08:49:37 GMT', PT37S",
        "'Sun Nov  6 08:49:37 1994', PT37S",
        "'Sun, 06 Nov 1994 08:00:00 GMT', PT0S",
        "99999999999999999999, PT8760H"
    })
    void readsDeltaSecondsAndAllThreeDateFormats(String value, Duration expected) {
        assertThat(RetryAfter.parse(value, NOW)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-1", "1.5", "soon", "0x10", "Mon, 06 Nov 1994 08:49:37 GMT", "06 Nov 1994", "1e3"})
    void refusesAnythingElse(String value) {
        assertThat(RetryAfter.parse(value, NOW)).isNull();
    }
}

package dev.retrysafe.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.Fuzz;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile rate-limit and {@code Retry-After} fields from a server: the client's parsers answer
 * "nothing usable" or a non-negative wait for every input and never throw.
 */
class HeaderParsersFuzzTest {

    private static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");

    static List<Long> seeds() {
        return Fuzz.seeds(11, 12, 13, 14, 15, 16);
    }

    /** A RateLimit-like value: mostly structured-field pieces, sometimes noise. */
    private static String rateLimitValue(Fuzz fuzz) {
        if (fuzz.chance(0.3)) {
            return fuzz.headerValue(200);
        }
        List<String> items = new ArrayList<>();
        int n = 1 + fuzz.nextInt(3);
        for (int i = 0; i < n; i++) {
            items.add(fuzz.oneOf("\"default\"", "\"a\"", "b", "\"\"", fuzz.headerValue(10)) + ";r="
                    + fuzz.oneOf("0", "-1", "5", "99999999999999999999", "1.5", fuzz.headerValue(6)) + ";t="
                    + fuzz.oneOf("0", "1", "-3", "1e9", "999999999999999", fuzz.headerValue(6)));
        }
        return String.join(fuzz.oneOf(", ", ",", " ,  ", ";"), items);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void rateLimitFieldsGiveAHintAndNeverThrow(long seed) {
        Fuzz.run(seed, 3_000, (fuzz, round) -> {
            Map<String, List<String>> map = new LinkedHashMap<>();
            switch (fuzz.nextInt(3)) {
                case 0 -> map.put(RateLimitHint.RATELIMIT, List.of(rateLimitValue(fuzz)));
                case 1 -> {
                    map.put(RateLimitHint.X_REMAINING, List.of(fuzz.oneOf("0", "-1", "1", fuzz.headerValue(25))));
                    map.put(
                            RateLimitHint.X_RESET,
                            List.of(fuzz.oneOf("0", "1700000000", "99999999999999999999", fuzz.headerValue(25))));
                }
                default -> map.put(RateLimitHint.X_REMAINING, List.of(fuzz.headerValue(40)));
            }
            HttpHeaders headers = HttpHeaders.of(map, (a, b) -> true);

            RateLimitHint hint = RateLimitHint.of(headers, NOW);

            assertThat(hint).isNotNull();
            if (hint instanceof RateLimitHint.Exhausted e) {
                assertThat(e.resetIn()).isGreaterThanOrEqualTo(Duration.ZERO);
            }
        });
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void retryAfterValuesGiveANonNegativeDelayOrNothing(long seed) {
        Fuzz.run(seed, 3_000, (fuzz, round) -> {
            String value = switch (fuzz.nextInt(4)) {
                case 0 ->
                    fuzz.oneOf(
                                    "Sun, 06 Nov 1994 08:49:37 GMT",
                                    "Sunday, 06-Nov-94 08:49:37 GMT",
                                    "Sun Nov  6 08:49:37 1994",
                                    "Fri, 31 Dec 9999 23:59:59 GMT")
                            .replace(fuzz.oneOf("0", "9", "N", " ", "G"), fuzz.headerValue(3));
                case 1 ->
                    Long.toString(fuzz.chance(0.5) ? fuzz.nextInt(100) : Math.abs((long) fuzz.nextInt(1 << 30) << 20));
                default -> fuzz.headerValue(60);
            };

            Duration delay = RetryAfterHeader.delay(List.of(value), NOW);

            if (delay != null) {
                assertThat(delay).isGreaterThanOrEqualTo(Duration.ZERO);
            }
        });
    }
}

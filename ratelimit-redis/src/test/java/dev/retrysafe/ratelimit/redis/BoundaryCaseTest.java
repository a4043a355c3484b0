package dev.retrysafe.ratelimit.redis;

import static dev.retrysafe.ratelimit.redis.Charges.charge;
import static dev.retrysafe.ratelimit.redis.Charges.fivePerTenSeconds;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Algorithm;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The seeds' boundary case of docs/rate-limits.md: 5 per 10 s, 10 requests at 9.9 s, 10 at 10.1 s. */
class BoundaryCaseTest extends ScriptTestBase {

    @ParameterizedTest(name = "{0}: {1} + {2}")
    @CsvSource({
        "FIXED_WINDOW, 5, 5",
        "GCRA, 5, 0",
        "TOKEN_BUCKET, 5, 0",
        "SLIDING_WINDOW, 5, 0",
    })
    void allowsWhatTheDocumentSays(Algorithm algorithm, int beforeBoundary, int afterBoundary) {
        at(9_900_000);
        assertThat(allowedOf(10, charge(fivePerTenSeconds(algorithm)))).isEqualTo(beforeBoundary);
        at(10_100_000);
        assertThat(allowedOf(10, charge(fivePerTenSeconds(algorithm)))).isEqualTo(afterBoundary);
    }
}

package dev.retrysafe.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.Fuzz;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile {@code Idempotency-Key} values: the parser answers a value (valid or invalid with a
 * reason) for every input, never throws, never echoes the raw input in its reason, and a valid
 * key is never longer than the limit.
 */
class IdempotencyKeyFuzzTest {

    static List<Long> seeds() {
        return Fuzz.seeds(1, 2, 3, 4, 5, 6, 7, 8);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void everyHeaderValueParsesToAValidOrAnInvalidKey(long seed) {
        Fuzz.run(seed, 2_000, (fuzz, round) -> {
            String value = fuzz.chance(0.3) ? "\"" + fuzz.string(300) + "\"" : fuzz.string(300);

            KeyParse parsed = IdempotencyKey.parse(value);

            switch (parsed) {
                case KeyParse.Valid v -> assertThat(v.key().value().length()).isBetween(1, IdempotencyKey.MAX_LENGTH);
                case KeyParse.Invalid i -> {
                    assertThat(i.reason()).isNotBlank();
                    if (value.length() > 3) {
                        assertThat(i.reason())
                                .as("the reason must not echo the value")
                                .doesNotContain(value);
                    }
                }
            }
        });
    }
}

package dev.retrysafe.idempotency;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.idempotency.internal.CanonicalJson;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Properties of fingerprints over seeded random inputs. A failing case names its seed; rerun it
 * alone by putting that seed in {@link #seeds()}.
 */
class FingerprintPropertyTest {

    private static final String DAMAGE = "{}[]\",:\\ 0-eE.tfn\u00ff";
    private static final long BASE_SEED = Long.getLong("retrysafe.test.seed", 0x5EED_2026L);

    static LongStream seeds() {
        return LongStream.range(0, 300).map(i -> BASE_SEED + i);
    }

    static LongStream manySeeds() {
        return LongStream.range(0, 2_000).map(i -> BASE_SEED * 31 + i);
    }

    private static Fingerprint fingerprint(String json) {
        return Fingerprint.of("POST", "/v1/things", json.getBytes(UTF_8));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everySpellingOfOneValueHasOneFingerprint(long seed) {
        Random r = new Random(seed);
        Object value = RandomJson.value(r, 0);
        String first = RandomJson.write(value, r);
        String second = RandomJson.write(value, r);

        byte[] canonicalFirst = CanonicalJson.canonicalize(first.getBytes(UTF_8));
        byte[] canonicalSecond = CanonicalJson.canonicalize(second.getBytes(UTF_8));
        assertThat(canonicalFirst).as("seed %d: %s is valid JSON", seed, first).isNotNull();
        assertThat(canonicalSecond)
                .as("seed %d: %s is valid JSON", seed, second)
                .isNotNull();
        assertThat(new String(canonicalSecond, UTF_8)).as("seed %d", seed).isEqualTo(new String(canonicalFirst, UTF_8));
        assertThat(fingerprint(second))
                .as("seed %d: %s vs %s", seed, first, second)
                .isEqualTo(fingerprint(first));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void changingOneValueChangesTheFingerprint(long seed) {
        Random r = new Random(seed);
        Object value = RandomJson.value(r, 0);
        Object changed = RandomJson.mutate(value, r);
        String original = RandomJson.write(value, r);
        String mutated = RandomJson.write(changed, r);

        assertThat(fingerprint(mutated))
                .as("seed %d: %s vs %s", seed, original, mutated)
                .isNotEqualTo(fingerprint(original));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("manySeeds")
    void randomBytesNeverThrowAndCanonicalFormIsAFixedPoint(long seed) {
        Random r = new Random(seed);
        byte[] input;
        if (r.nextBoolean()) {
            input = new byte[r.nextInt(64)];
            r.nextBytes(input);
        } else {
            // damaged JSON reaches far deeper into the parser than noise does
            input = RandomJson.write(RandomJson.value(r, 0), r).getBytes(UTF_8);
            int edits = 1 + r.nextInt(3);
            for (int i = 0; i < edits && input.length > 0; i++) {
                input[r.nextInt(input.length)] = (byte) DAMAGE.charAt(r.nextInt(DAMAGE.length()));
            }
        }

        byte[] canonical = CanonicalJson.canonicalize(input);
        Fingerprint.of("POST", "/v1/things", input);

        if (canonical != null) {
            assertThat(CanonicalJson.canonicalize(canonical))
                    .as("seed %d", seed)
                    .isEqualTo(canonical);
        }
    }
}

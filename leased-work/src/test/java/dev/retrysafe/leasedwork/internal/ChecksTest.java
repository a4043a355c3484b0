package dev.retrysafe.leasedwork.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.common.MonotonicClock;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ChecksTest {

    @Test
    void utf8LengthEqualsTheEncodedLengthForRandomStrings() {
        long seed = MonotonicClock.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 2_000; i++) {
            String s = randomString(random);
            assertThat(Checks.utf8Length(s))
                    .as("seed %d, string %s", seed, s.codePoints().boxed().toList())
                    .isEqualTo(s.getBytes(UTF_8).length);
        }
    }

    /** Code units from every UTF-8 length class, lone surrogates included (encoded as '?'). */
    private static String randomString(SplittableRandom random) {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(0, 20);
        for (int j = 0; j < length; j++) {
            switch (random.nextInt(5)) {
                case 0 -> s.append((char) random.nextInt(0, 0x80));
                case 1 -> s.append((char) random.nextInt(0x80, 0x800));
                case 2 -> s.append((char) random.nextInt(0x800, 0xD800));
                case 3 -> s.appendCodePoint(random.nextInt(0x10000, 0x110000));
                default -> s.append((char) random.nextInt(0xD800, 0xE000));
            }
        }
        return s.toString();
    }

    @Test
    void slugsAreLowerCaseDigitsAndThreeMarks() {
        assertThat(Checks.isSlug("payments_csv.v2-beta")).isTrue();
        assertThat(Checks.isSlug("")).isFalse();
        assertThat(Checks.isSlug("a".repeat(65))).isFalse();
        assertThat(Checks.isSlug("A")).isFalse();
        assertThat(Checks.isSlug("a b")).isFalse();
    }
}

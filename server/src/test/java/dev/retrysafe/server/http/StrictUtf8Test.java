package dev.retrysafe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.Fuzz;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link StrictUtf8} against the JDK's own strict decoder, over seeded random text and bytes. */
class StrictUtf8Test {

    private static final int ROUNDS = 3_000;
    private static final Pattern AT = Pattern.compile("an invalid byte 0x[0-9A-F]{2} at offset (\\d+)");
    /** Code points of every UTF-8 length, none NUL, none a surrogate. */
    private static final List<int[]> RANGES = List.of(
            new int[] {1, 0x7F},
            new int[] {0x80, 0x7FF},
            new int[] {0x800, 0xD7FF},
            new int[] {0xE000, 0xFFFF},
            new int[] {0x10000, 0x10FFFF});

    static List<Long> seeds() {
        return Fuzz.seeds(31, 32, 33);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void utf8TextComesBackUnchangedWithOrWithoutAByteOrderMark(long seed) {
        Fuzz.run(seed, ROUNDS, (fuzz, round) -> {
            StringBuilder text = new StringBuilder();
            for (int i = fuzz.nextInt(20); i > 0; i--) {
                int[] range = fuzz.oneOf(RANGES);
                text.appendCodePoint(range[0] + fuzz.nextInt(range[1] - range[0] + 1));
            }
            byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
            byte[] marked =
                    fuzz.chance(0.5) ? bytes : concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, bytes);

            assertThat(StrictUtf8.decode(marked)).isEqualTo(new StrictUtf8.Text(text.toString()));
        });
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void anyBytesAreAcceptedExactlyWhenTheJdkDecodesThemAndTheFirstBadByteIsNamed(long seed) {
        Fuzz.run(seed, ROUNDS, (fuzz, round) -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int i = fuzz.nextInt(12); i > 0; i--) {
                // mostly well-formed pieces, now and then a byte that may break them
                byte[] piece = fuzz.chance(0.8)
                        ? new String(Character.toChars(0x20 + fuzz.nextInt(0x10FFDF))).getBytes(StandardCharsets.UTF_8)
                        : new byte[] {(byte) fuzz.nextInt(256)};
                out.write(piece, 0, fuzz.chance(0.9) ? piece.length : fuzz.nextInt(piece.length + 1));
            }
            byte[] bytes = out.toByteArray();

            StrictUtf8.Decoded decoded = StrictUtf8.decode(bytes);

            String why = Arrays.toString(bytes) + " -> " + decoded;
            boolean foreign = startsWith(bytes, 0xFF, 0xFE)
                    || startsWith(bytes, 0xFE, 0xFF)
                    || startsWith(bytes, 0, 0, 0xFE, 0xFF);
            boolean nul = indexOfNul(bytes) >= 0;
            assertThat(decoded instanceof StrictUtf8.Text)
                    .as(why)
                    .isEqualTo(!foreign && !nul && jdkDecodes(bytes, bytes.length));
            if (!foreign && !nul && decoded instanceof StrictUtf8.NotUtf8 notUtf8) {
                Matcher m = AT.matcher(notUtf8.reason());
                assertThat(m.matches()).as(why).isTrue();
                int at = Integer.parseInt(m.group(1));
                assertThat(jdkDecodes(bytes, at))
                        .as("everything before offset " + at + ": " + why)
                        .isTrue();
            }
        });
    }

    private static boolean jdkDecodes(byte[] bytes, int length) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes, 0, length));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static int indexOfNul(byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private static boolean startsWith(byte[] b, int... prefix) {
        return b.length >= prefix.length && Arrays.equals(Arrays.copyOf(b, prefix.length), toBytes(prefix));
    }

    private static byte[] toBytes(int[] values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

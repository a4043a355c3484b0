package dev.retrysafe.idempotency.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.retrysafe.idempotency.HeaderField;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HeaderCodecTest {

    private static final String VALUE_CHARS = "ab:\\ \t\"\u00e9n";

    @Test
    void encodesOneLinePerFieldEscapingBackslashes() {
        List<HeaderField> fields = List.of(
                new HeaderField("Content-Type", "application/json; charset=utf-8"),
                new HeaderField("Location", "/v1/payments/pay_1?a=b:c"),
                new HeaderField("X-Odd", "back\\slash\\n"),
                new HeaderField("X-Empty", ""));
        String text = HeaderCodec.encode(fields);

        assertThat(text)
                .isEqualTo("Content-Type:application/json; charset=utf-8\n"
                        + "Location:/v1/payments/pay_1?a=b:c\nX-Odd:back\\\\slash\\\\n\nX-Empty:");
        assertThat(HeaderCodec.decode(text)).isEqualTo(fields);
        assertThat(HeaderCodec.decode(HeaderCodec.encode(List.of()))).isEmpty();
    }

    @Test
    void rejectsCorruptedText() {
        assertThatIllegalArgumentException().isThrownBy(() -> HeaderCodec.decode(":value"));
        assertThatIllegalArgumentException().isThrownBy(() -> HeaderCodec.decode("Name:bad\\q"));
        assertThatIllegalArgumentException().isThrownBy(() -> HeaderCodec.decode("Name:trailing\\"));
    }

    static LongStream seeds() {
        return LongStream.range(0, 200).map(i -> 77_000 + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void anyFieldsRoundTrip(long seed) {
        Random r = new Random(seed);
        List<HeaderField> fields = new ArrayList<>();
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            StringBuilder value = new StringBuilder();
            int length = r.nextInt(12);
            for (int j = 0; j < length; j++) {
                value.append(VALUE_CHARS.charAt(r.nextInt(VALUE_CHARS.length())));
            }
            fields.add(new HeaderField("X-H" + r.nextInt(100), value.toString()));
        }
        assertThat(HeaderCodec.decode(HeaderCodec.encode(fields)))
                .as("seed %d", seed)
                .isEqualTo(fields);
    }
}

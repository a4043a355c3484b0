package dev.retrysafe.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookSecretTest {

    @Test
    void generatedSecretsAreRandomAndThirtyTwoBytesByDefault() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            WebhookSecret secret = WebhookSecret.generate();
            assertThat(secret.length()).isEqualTo(32);
            assertThat(seen.add(secret.encoded())).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {24, 25, 32, 48, 63, 64})
    void everyAllowedLengthRoundTripsThroughItsText(int bytes) {
        WebhookSecret secret = WebhookSecret.generate(bytes);

        assertThat(secret.encoded()).startsWith("whsec_");
        assertThat(WebhookSecret.parse(secret.encoded())).isEqualTo(secret);
        assertThat(WebhookSecret.parse(secret.encoded()).length()).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 23, 65, 1024})
    void lengthsOutsideTheSpecificationAreRefused(int bytes) {
        assertThatThrownBy(() -> WebhookSecret.generate(bytes))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("24 to 64")
                .hasMessageContaining(Integer.toString(bytes));
        assertThatThrownBy(() -> WebhookSecret.fromBytes(new byte[bytes])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSpecificationsExampleSecretParsesToTwentyFourBytes() {
        assertThat(WebhookSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").length())
                .isEqualTo(24);
    }

    @Test
    void secretWithoutPrefixIsRefusedWithoutRepeatingIt() {
        String bare = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

        assertThatThrownBy(() -> WebhookSecret.parse(bare))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must start with 'whsec_'")
                .hasMessageNotContaining(bare);
        assertThatThrownBy(() -> WebhookSecret.parse("WHSEC_" + bare)).hasMessageContaining("whsec_");
    }

    @Test
    void secretThatIsNotBase64IsRefusedWithoutRepeatingIt() {
        String text = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZI!o2LaLaSw";

        assertThatThrownBy(() -> WebhookSecret.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not valid base64")
                .hasMessageNotContaining("MfKQ9")
                .hasMessageNotContaining("!")
                .hasNoCause();
    }

    @Test
    void secretOfTheWrongLengthSaysHowLongItWas() {
        String shortOne = "whsec_" + Base64.getEncoder().encodeToString(new byte[16]);
        String longOne = "whsec_" + Base64.getEncoder().encodeToString(new byte[65]);
        String veryLong = "whsec_" + Base64.getEncoder().encodeToString(new byte[10_000]);

        assertThatThrownBy(() -> WebhookSecret.parse(shortOne)).hasMessageContaining("24 to 64 bytes, was 16");
        assertThatThrownBy(() -> WebhookSecret.parse(longOne)).hasMessageContaining("24 to 64 bytes, was 65");
        assertThatThrownBy(() -> WebhookSecret.parse(veryLong)).hasMessageContaining("too long");
        assertThatThrownBy(() -> WebhookSecret.parse("whsec_")).hasMessageContaining("was 0");
    }

    @Test
    void toStringNeverShowsTheSecret() {
        WebhookSecret secret = WebhookSecret.generate();
        String base64 = secret.encoded().substring("whsec_".length());

        assertThat(secret.toString())
                .isEqualTo("WebhookSecret[32 bytes, redacted]")
                .doesNotContain(base64);
    }

    @Test
    void fromBytesCopiesTheKey() {
        byte[] key = new byte[32];
        WebhookSecret secret = WebhookSecret.fromBytes(key);
        key[0] = 1;

        assertThat(secret).isEqualTo(WebhookSecret.fromBytes(new byte[32])).isNotEqualTo(WebhookSecret.fromBytes(key));
    }
}

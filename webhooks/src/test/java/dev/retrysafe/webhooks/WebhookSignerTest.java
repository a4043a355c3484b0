package dev.retrysafe.webhooks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookSignerTest {

    private final WebhookSecret current = WebhookSecret.generate();
    private final WebhookSecret previous = WebhookSecret.generate();
    private final byte[] body = "{}".getBytes(UTF_8);

    @Test
    void severalSecretsGiveSpaceSeparatedSignaturesInTheirOrder() {
        String alone = WebhookSigner.of(current).sign("msg_1", 1, body);
        String old = WebhookSigner.of(previous).sign("msg_1", 1, body);

        assertThat(WebhookSigner.of(current, previous).sign("msg_1", 1, body)).isEqualTo(alone + " " + old);
        assertThat(alone).matches("v1,[A-Za-z0-9+/]{43}=");
    }

    @Test
    void headersHoldTheThreeValuesUnderTheirStandardNames() {
        SignedHeaders headers = WebhookSigner.of(current).headers("msg_1", 1_767_225_600L, body);

        assertThat(headers.toMap())
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "webhook-id",
                        "msg_1",
                        "webhook-timestamp",
                        "1767225600",
                        "webhook-signature",
                        WebhookSigner.of(current).sign("msg_1", 1_767_225_600L, body)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "msg.1", "msg 1", "msg\n1", "msg_é"})
    void idsThatCannotBeSignedUnambiguouslyAreRefused(String id) {
        assertThatThrownBy(() -> WebhookSigner.of(current).sign(id, 1, body))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("webhook id");
    }

    @Test
    void longIdsAndNegativeTimestampsAreRefused() {
        WebhookSigner signer = WebhookSigner.of(current);

        assertThat(signer.sign("m".repeat(255), 0, body)).startsWith("v1,");
        assertThatThrownBy(() -> signer.sign("m".repeat(256), 0, body))
                .hasMessageContaining("1 to 255 characters, was 256");
        assertThatThrownBy(() -> signer.sign("msg_1", -1, body)).hasMessageContaining("-1");
    }

    @Test
    void aSignerNeedsOneToTenSecrets() {
        assertThatThrownBy(() -> WebhookSigner.builder().build()).isInstanceOf(IllegalStateException.class);
        WebhookSigner.Builder builder = WebhookSigner.builder();
        for (int i = 0; i < 10; i++) {
            builder.secret(WebhookSecret.generate());
        }
        assertThatThrownBy(() -> builder.secret(current)).hasMessageContaining("at most 10");
        assertThat(builder.build().sign("m", 0, body).split(" ")).hasSize(10);
    }
}

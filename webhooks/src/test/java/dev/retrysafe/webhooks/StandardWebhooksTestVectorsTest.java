package dev.retrysafe.webhooks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The test vectors published with the Standard Webhooks specification, so that our signer and
 * verifier agree with every library of the specification.
 *
 * <p>Source: repository {@code standard-webhooks/standard-webhooks}, file
 * {@code libraries/javascript/src/webhook.test.ts} at commit
 * {@code 10d3e46d720c4e5861a792bec25792a04ad4e2b3} (test "sign function works" for the signature,
 * "multi sig payload is valid", "invalid signature throws error" and "partial signature throws
 * error" for the header cases). The same vector appears in {@code libraries/go/webhook_test.go}
 * ({@code TestWebhookSign}, commit {@code 449485caf9c0303530c19524fbe4096680aafcf1}).
 */
class StandardWebhooksTestVectorsTest {

    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    private static final long TIMESTAMP = 1614265330;
    private static final byte[] PAYLOAD = "{\"test\": 2432232314}".getBytes(UTF_8);
    private static final String SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    // a well-formed v1 signature that belongs to nothing, from the same file
    private static final String FOREIGN = "Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=";

    private final WebhookVerifier verifier = WebhookVerifier.builder()
            .secret(WebhookSecret.parse(SECRET))
            .clock(Clock.fixed(Instant.ofEpochSecond(TIMESTAMP), ZoneOffset.UTC))
            .build();

    @Test
    void signerReproducesThePublishedSignature() {
        assertThat(WebhookSigner.of(WebhookSecret.parse(SECRET)).sign(ID, TIMESTAMP, PAYLOAD))
                .isEqualTo(SIGNATURE);
    }

    @Test
    void verifierAcceptsThePublishedSignature() throws WebhookVerificationException {
        VerifiedWebhook webhook = verifier.verify(headers(SIGNATURE), PAYLOAD);

        assertThat(webhook.id()).isEqualTo(ID);
        assertThat(webhook.timestamp()).isEqualTo(Instant.ofEpochSecond(TIMESTAMP));
        assertThat(webhook.body()).isEqualTo(PAYLOAD);
    }

    @Test
    void verifierAcceptsThePublishedMultiSignatureHeader() throws WebhookVerificationException {
        String header = String.join(" ", "v1," + FOREIGN, "v2," + FOREIGN, SIGNATURE, "v1," + FOREIGN);

        assertThat(verifier.verify(headers(header), PAYLOAD).id()).isEqualTo(ID);
    }

    @Test
    void verifierRejectsThePublishedBadSignatures() {
        assertThatThrownBy(() -> verifier.verify(headers("v1,dawfeoifkpqwoekfpqoekf"), PAYLOAD))
                .isInstanceOf(WebhookVerificationException.class);
        assertThatThrownBy(() -> verifier.verify(headers(SIGNATURE.substring(0, 8)), PAYLOAD))
                .isInstanceOf(WebhookVerificationException.class);
        assertThatThrownBy(() -> verifier.verify(headers("v1,"), PAYLOAD))
                .isInstanceOf(WebhookVerificationException.class);
        assertThatThrownBy(() -> verifier.verify(headers("v1," + FOREIGN), PAYLOAD))
                .isInstanceOf(WebhookVerificationException.class);
    }

    private static HeaderLookup headers(String signature) {
        return HeaderLookup.of(Map.of(
                "webhook-id", ID, "webhook-timestamp", Long.toString(TIMESTAMP), "webhook-signature", signature));
    }
}

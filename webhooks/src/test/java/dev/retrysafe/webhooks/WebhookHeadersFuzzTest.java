package dev.retrysafe.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.Fuzz;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile webhook headers against the verifier: a delivery is either verified (only when its
 * headers are the signer's, unchanged) or rejected with {@link WebhookVerificationException};
 * nothing else is thrown, whatever the headers hold.
 */
class WebhookHeadersFuzzTest {

    private static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");

    private final WebhookSecret secret = WebhookSecret.generate();
    private final WebhookSigner signer = WebhookSigner.builder().secret(secret).build();
    private final WebhookVerifier verifier =
            WebhookVerifier.builder().secret(secret).clock(new FakeClock(NOW)).build();

    static List<Long> seeds() {
        return Fuzz.seeds(21, 22, 23, 24, 25, 26);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void mangledHeadersAreRejectedAndNeverThrowAnythingElse(long seed) {
        Fuzz.run(seed, 2_000, (fuzz, round) -> {
            byte[] body = fuzz.string(200).getBytes(StandardCharsets.UTF_8);
            SignedHeaders good = signer.headers("msg_" + round, NOW.getEpochSecond(), body);
            Map<String, String> headers = new LinkedHashMap<>(good.toMap());
            String name = fuzz.oneOf(
                    SignedHeaders.WEBHOOK_ID, SignedHeaders.WEBHOOK_TIMESTAMP, SignedHeaders.WEBHOOK_SIGNATURE);
            String original = headers.get(name);
            String mangled = switch (fuzz.nextInt(5)) {
                case 0 -> fuzz.string(3_000); // anything, also longer than the limits
                case 1 -> original + fuzz.headerValue(20);
                case 2 -> fuzz.headerValue(20) + original;
                case 3 -> original.substring(0, fuzz.nextInt(original.length()));
                default ->
                    name.equals(SignedHeaders.WEBHOOK_SIGNATURE)
                            ? fuzz.oneOf(
                                    "v1,",
                                    "v1a,",
                                    "v1," + "A".repeat(fuzz.nextInt(100)),
                                    " ".repeat(30),
                                    String.join(" ", java.util.Collections.nCopies(40, original)))
                            : fuzz.oneOf("", " ", "-1", "1e9", "99999999999999999999", "\u0000");
            };
            if (mangled.equals(original)) {
                return; // nothing changed: not this test's case
            }
            if (fuzz.chance(0.1)) {
                headers.remove(name);
            } else {
                headers.put(name, mangled);
            }

            // a rotation may legitimately keep a valid entry among added ones
            // (within the documented limits on the header's length and number of entries)
            String signatures = headers.get(SignedHeaders.WEBHOOK_SIGNATURE);
            List<String> entries = signatures == null
                    ? List.of()
                    : java.util.Arrays.stream(signatures.split(" "))
                            .filter(e -> !e.isEmpty())
                            .toList();
            boolean stillSigned = name.equals(SignedHeaders.WEBHOOK_SIGNATURE)
                    && entries.contains(original)
                    && entries.size() <= WebhookVerifier.MAX_SIGNATURES
                    && signatures.length() <= WebhookVerifier.MAX_SIGNATURE_HEADER_LENGTH;
            // leading zeros keep the timestamp's value, and the signed content is built from the value
            // (as the Standard Webhooks libraries do)
            String timestamp = headers.get(SignedHeaders.WEBHOOK_TIMESTAMP);
            boolean sameTimestamp = name.equals(SignedHeaders.WEBHOOK_TIMESTAMP)
                    && timestamp != null
                    && timestamp.matches("0+" + java.util.regex.Pattern.quote(original))
                    && timestamp.length() <= WebhookVerifier.MAX_TIMESTAMP_LENGTH;
            if (stillSigned || sameTimestamp) {
                assertThat(verifier.verify(HeaderLookup.of(headers), body).id()).isEqualTo(good.id());
            } else {
                assertThatThrownBy(() -> {
                            VerifiedWebhook accepted = verifier.verify(HeaderLookup.of(headers), body);
                            throw new AssertionError("accepted mangled headers " + headers + " as " + accepted.id());
                        })
                        .isInstanceOf(WebhookVerificationException.class);
            }
        });
    }
}

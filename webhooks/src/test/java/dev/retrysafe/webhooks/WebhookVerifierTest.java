package dev.retrysafe.webhooks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.webhooks.WebhookVerificationException.Reason;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every attack of the seed's webhook section against {@code verify}, and the ones it left out. */
class WebhookVerifierTest {

    private static final String ID = "msg_evt_1";
    private static final String BODY = "{\"id\":\"evt_1\",\"type\":\"invoice.paid\",\"amount\":4200}";
    private static final String PRETTY_BODY = """
            {
              "id": "evt_1",
              "type": "invoice.paid",
              "amount": 4200
            }""";

    private final FakeClock clock = new FakeClock();
    private final WebhookSecret secret = WebhookSecret.generate();
    private final WebhookVerifier verifier =
            WebhookVerifier.builder().secret(secret).clock(clock).build();
    private final long now = clock.instant().getEpochSecond();

    // --- the seed's attacks ------------------------------------------------------------------

    @Test
    void validDeliveryIsAccepted() throws WebhookVerificationException {
        VerifiedWebhook webhook = verifier.verify(signed(secret, ID, now, BODY), bytes(BODY));

        assertThat(webhook.id()).isEqualTo(ID);
        assertThat(webhook.timestamp().getEpochSecond()).isEqualTo(now);
        assertThat(webhook.bodyAsString()).isEqualTo(BODY);
    }

    @Test
    void editedBodyIsASignatureMismatch() {
        HeaderLookup headers = signed(secret, ID, now, BODY);

        assertThat(reason(headers, BODY.replace("4200", "1"))).isEqualTo(Reason.NO_MATCHING_SIGNATURE);
    }

    @Test
    void reSerialisedJsonIsASignatureMismatch() {
        HeaderLookup headers = signed(secret, ID, now, BODY);

        assertThat(reason(headers, PRETTY_BODY)).isEqualTo(Reason.NO_MATCHING_SIGNATURE);
    }

    @Test
    void wrongSecretIsASignatureMismatch() {
        HeaderLookup headers = signed(WebhookSecret.generate(), ID, now, BODY);

        assertThat(reason(headers, BODY)).isEqualTo(Reason.NO_MATCHING_SIGNATURE);
    }

    @Test
    void messageReplayedAnHourLaterIsOutsideTolerance() {
        HeaderLookup headers = signed(secret, ID, now, BODY);
        clock.advance(Duration.ofHours(1));

        assertThat(reason(headers, BODY)).isEqualTo(Reason.TIMESTAMP_TOO_OLD);
    }

    @Test
    void twoSignaturesDuringRotationAreAcceptedByReceiversOfEitherSecret() throws WebhookVerificationException {
        WebhookSecret old = WebhookSecret.generate();
        String header = WebhookSigner.of(secret, old).sign(ID, now, bytes(BODY));
        HeaderLookup headers = headers(ID, Long.toString(now), header);

        assertThat(header.split(" ")).hasSize(2).allMatch(s -> s.startsWith("v1,"));
        assertThat(verifier.verify(headers, bytes(BODY)).id()).isEqualTo(ID);
        assertThat(WebhookVerifier.builder()
                        .secret(old)
                        .clock(clock)
                        .build()
                        .verify(headers, bytes(BODY))
                        .id())
                .isEqualTo(ID);
    }

    @Test
    void receiverHoldingBothSecretsAcceptsEitherDuringRotation() throws WebhookVerificationException {
        WebhookSecret next = WebhookSecret.generate();
        WebhookVerifier rotating = WebhookVerifier.builder()
                .secret(next)
                .secret(secret)
                .clock(clock)
                .build();

        assertThat(rotating.verify(signed(secret, ID, now, BODY), bytes(BODY)).id())
                .isEqualTo(ID);
        assertThat(rotating.verify(signed(next, ID, now, BODY), bytes(BODY)).id())
                .isEqualTo(ID);
        assertThat(reasonOf(rotating, signed(WebhookSecret.generate(), ID, now, BODY), BODY))
                .isEqualTo(Reason.NO_MATCHING_SIGNATURE);
    }

    // --- timestamps ----------------------------------------------------------------------------

    @Test
    void timestampsInTheFutureBeyondToleranceAreRejected() {
        assertThat(reason(signed(secret, ID, now + 3600, BODY), BODY)).isEqualTo(Reason.TIMESTAMP_TOO_NEW);
        assertThat(reason(signed(secret, ID, now + 301, BODY), BODY)).isEqualTo(Reason.TIMESTAMP_TOO_NEW);
    }

    @Test
    void toleranceIsInclusiveInBothDirections() throws WebhookVerificationException {
        verifier.verify(signed(secret, ID, now + 300, BODY), bytes(BODY));
        verifier.verify(signed(secret, ID, now - 300, BODY), bytes(BODY));

        assertThat(reason(signed(secret, ID, now - 301, BODY), BODY)).isEqualTo(Reason.TIMESTAMP_TOO_OLD);
    }

    @Test
    void configuredToleranceApplies() throws WebhookVerificationException {
        WebhookVerifier strict = WebhookVerifier.builder()
                .secret(secret)
                .clock(clock)
                .tolerance(Duration.ofSeconds(10))
                .build();

        strict.verify(signed(secret, ID, now - 10, BODY), bytes(BODY));
        assertThat(reasonOf(strict, signed(secret, ID, now - 11, BODY), BODY)).isEqualTo(Reason.TIMESTAMP_TOO_OLD);
        assertThatThrownBy(() -> WebhookVerifier.builder().tolerance(Duration.ofMillis(1500)))
                .hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> WebhookVerifier.builder().tolerance(Duration.ZERO))
                .hasMessageContaining("PT0S");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "hello",
                "-5",
                "+1767225600",
                " 1767225600",
                "1767225600 ",
                "1.7e9",
                "1767225600abc",
                "0x69557f00",
                "１７６７２２５６００"
            })
    void nonNumericTimestampIsInvalid(String timestamp) {
        HeaderLookup headers = headers(ID, timestamp, WebhookSigner.of(secret).sign(ID, now, bytes(BODY)));

        assertThat(reason(headers, BODY)).isEqualTo(Reason.INVALID_TIMESTAMP);
    }

    // --- the signature header ------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "     "})
    void emptySignatureListIsMalformed(String header) {
        assertThat(reason(headers(ID, Long.toString(now), header), BODY)).isEqualTo(Reason.MALFORMED_SIGNATURE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"v1,", "v1", ",abc", "v1;abc", "abc"})
    void entryWithoutVersionOrDataIsMalformed(String header) {
        assertThat(reason(headers(ID, Long.toString(now), header), BODY)).isEqualTo(Reason.MALFORMED_SIGNATURE);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 16, 31, 33, 64})
    void base64OfTheWrongLengthIsMalformed(int bytes) {
        String header = "v1," + Base64.getEncoder().encodeToString(new byte[bytes]);

        assertThat(reason(headers(ID, Long.toString(now), header), BODY)).isEqualTo(Reason.MALFORMED_SIGNATURE);
    }

    @Test
    void rightLengthButNotBase64IsMalformed() {
        String header = "v1," + "!".repeat(43) + "=";

        assertThat(reason(headers(ID, Long.toString(now), header), BODY)).isEqualTo(Reason.MALFORMED_SIGNATURE);
    }

    @Test
    void unknownVersionsAreIgnored() throws WebhookVerificationException {
        String valid = WebhookSigner.of(secret).sign(ID, now, bytes(BODY));
        String header = "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg== "
                + "v2,anything " + valid;

        assertThat(verifier.verify(headers(ID, Long.toString(now), header), bytes(BODY))
                        .id())
                .isEqualTo(ID);
        assertThat(reason(headers(ID, Long.toString(now), "v2," + valid.substring(3)), BODY))
                .as("a valid MAC under another version label")
                .isEqualTo(Reason.NO_MATCHING_SIGNATURE);
    }

    @Test
    void tenMegabyteHeadersAreRejectedQuicklyWithoutReadingThem() {
        String huge = "v1,".repeat(10 * 1024 * 1024 / 3);
        String signature = WebhookSigner.of(secret).sign(ID, now, bytes(BODY));

        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
            assertThat(reason(headers(ID, Long.toString(now), huge), BODY)).isEqualTo(Reason.HEADER_TOO_LARGE);
            assertThat(reason(headers(ID, Long.toString(now), signature + " " + huge), BODY))
                    .isEqualTo(Reason.HEADER_TOO_LARGE);
            assertThat(reason(headers(huge, Long.toString(now), signature), BODY))
                    .isEqualTo(Reason.HEADER_TOO_LARGE);
            assertThat(reason(headers(ID, "1".repeat(10_000_000), signature), BODY))
                    .isEqualTo(Reason.HEADER_TOO_LARGE);
        });
    }

    @Test
    void moreThanSixteenSignaturesAreTooMany() {
        String valid = WebhookSigner.of(secret).sign(ID, now, bytes(BODY));
        String header = (valid + " ").repeat(17).strip();

        assertThat(header.length()).isLessThan(WebhookVerifier.MAX_SIGNATURE_HEADER_LENGTH);
        assertThat(reason(headers(ID, Long.toString(now), header), BODY)).isEqualTo(Reason.HEADER_TOO_LARGE);
    }

    @Test
    void missingOrEmptyHeadersAreMissing() {
        String signature = WebhookSigner.of(secret).sign(ID, now, bytes(BODY));
        String ts = Long.toString(now);
        for (String name : new String[] {"webhook-id", "webhook-timestamp", "webhook-signature"}) {
            Map<String, String> map =
                    new HashMap<>(Map.of("webhook-id", ID, "webhook-timestamp", ts, "webhook-signature", signature));
            map.remove(name);
            assertThat(reason(HeaderLookup.of(map), BODY)).as(name).isEqualTo(Reason.MISSING_HEADER);
        }
        assertThat(reason(headers("", ts, signature), BODY)).isEqualTo(Reason.MISSING_HEADER);
        assertThat(reason(headers(ID, "", signature), BODY)).isEqualTo(Reason.MISSING_HEADER);
    }

    @Test
    void headerNamesAreMatchedWhateverTheirCase() throws WebhookVerificationException {
        String signature = WebhookSigner.of(secret).sign(ID, now, bytes(BODY));
        HeaderLookup headers = HeaderLookup.of(
                Map.of("Webhook-Id", ID, "WEBHOOK-TIMESTAMP", Long.toString(now), "webhook-Signature", signature));

        assertThat(verifier.verify(headers, bytes(BODY)).id()).isEqualTo(ID);
    }

    @Test
    void bodyIsTheExactBytesEvenWhenTheyAreNotText() throws WebhookVerificationException {
        byte[] body = {(byte) 0xff, 0, (byte) 0xfe, '\r', '\n'};
        String signature = WebhookSigner.of(secret).sign(ID, now, body);

        assertThat(verifier.verify(headers(ID, Long.toString(now), signature), body)
                        .body())
                .isEqualTo(body);
        assertThat(reasonOf(verifier, headers(ID, Long.toString(now), signature), new byte[] {
                    (byte) 0xff, 0, (byte) 0xfe, '\n'
                }))
                .isEqualTo(Reason.NO_MATCHING_SIGNATURE);
    }

    @Test
    void failuresNeverShowTheSecretOrTheSignatures() {
        String signature = WebhookSigner.of(secret).sign(ID, now, bytes(BODY));
        String base64Secret = secret.encoded().substring(6);
        for (HeaderLookup headers : new HeaderLookup[] {
            headers(ID, Long.toString(now), signature),
            headers(ID, Long.toString(now - 3600), signature),
            headers(ID, Long.toString(now), signature.substring(0, 20))
        }) {
            WebhookVerificationException e = catchThrowableOfType(
                    WebhookVerificationException.class, () -> verifier.verify(headers, bytes("tampered")));
            assertThat(e.getMessage()).doesNotContain(base64Secret).doesNotContain(signature.substring(3, 20));
            assertThat(e.getStackTrace()).as("cheap to throw at a flood").isEmpty();
        }
    }

    @Test
    void eachNearMissGetsTheSameAnswerAsAWildGuess() {
        // a forger learns nothing from how many leading bytes were right
        byte[] mac = Base64.getDecoder()
                .decode(WebhookSigner.of(secret).sign(ID, now, bytes(BODY)).substring(3));
        for (int rightBytes = 0; rightBytes < mac.length; rightBytes++) {
            byte[] guess = mac.clone();
            guess[rightBytes] ^= 1;
            String header = "v1," + Base64.getEncoder().encodeToString(guess);
            WebhookVerificationException e = catchThrowableOfType(
                    WebhookVerificationException.class,
                    () -> verifier.verify(headers(ID, Long.toString(now), header), bytes(BODY)));
            assertThat(e.reason()).isEqualTo(Reason.NO_MATCHING_SIGNATURE);
            assertThat(e.getMessage()).isEqualTo(Reason.NO_MATCHING_SIGNATURE.description());
        }
    }

    // --- helpers ---------------------------------------------------------------------------------

    private Reason reason(HeaderLookup headers, String body) {
        return reasonOf(verifier, headers, body);
    }

    private static Reason reasonOf(WebhookVerifier verifier, HeaderLookup headers, String body) {
        return reasonOf(verifier, headers, bytes(body));
    }

    private static Reason reasonOf(WebhookVerifier verifier, HeaderLookup headers, byte[] body) {
        WebhookVerificationException e =
                catchThrowableOfType(WebhookVerificationException.class, () -> verifier.verify(headers, body));
        assertThat(e).as("verification should have failed").isNotNull();
        return e.reason();
    }

    static HeaderLookup signed(WebhookSecret secret, String id, long timestamp, String body) {
        return headers(id, Long.toString(timestamp), WebhookSigner.of(secret).sign(id, timestamp, bytes(body)));
    }

    static HeaderLookup headers(String id, String timestamp, String signature) {
        return HeaderLookup.of(
                Map.of("webhook-id", id, "webhook-timestamp", timestamp, "webhook-signature", signature));
    }

    static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }
}

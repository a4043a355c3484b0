package dev.retrysafe.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.webhooks.WebhookVerificationException.Reason;
import java.time.Instant;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sign-then-verify over random secrets, ids, timestamps and bodies: the genuine delivery always
 * verifies, and any one changed bit of body, id or timestamp never does.
 */
class SignVerifyPropertyTest {

    static LongStream seeds() {
        long base = System.nanoTime();
        return LongStream.range(0, 200).map(i -> base + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void genuineDeliveriesVerifyAndAnyChangeBreaksThem(long seed) throws WebhookVerificationException {
        Random random = new Random(seed);
        String why = "seed " + seed + " (rerun with this seed to reproduce)";
        byte[] key = new byte[24 + random.nextInt(41)];
        random.nextBytes(key);
        WebhookSecret secret = WebhookSecret.fromBytes(key);
        String id = randomId(random);
        long timestamp = random.nextLong(4_000_000_000L);
        byte[] body = new byte[random.nextInt(2_000)];
        random.nextBytes(body);
        FakeClock clock = new FakeClock(Instant.ofEpochSecond(timestamp + random.nextInt(601) - 300));
        WebhookVerifier verifier =
                WebhookVerifier.builder().secret(secret).clock(clock).build();
        String signature = WebhookSigner.of(secret).sign(id, timestamp, body);

        VerifiedWebhook verified =
                verifier.verify(WebhookVerifierTest.headers(id, Long.toString(timestamp), signature), body);
        assertThat(verified.id()).as(why).isEqualTo(id);
        assertThat(verified.body()).as(why).isEqualTo(body);

        if (body.length > 0) {
            byte[] changed = body.clone();
            changed[random.nextInt(changed.length)] ^= (byte) (1 << random.nextInt(8));
            assertThat(reason(verifier, id, Long.toString(timestamp), signature, changed))
                    .as(why)
                    .isEqualTo(Reason.NO_MATCHING_SIGNATURE);
        }
        char[] otherId = id.toCharArray();
        int at = random.nextInt(otherId.length);
        otherId[at] = otherId[at] == 'a' ? 'b' : 'a';
        assertThat(reason(verifier, new String(otherId), Long.toString(timestamp), signature, body))
                .as(why)
                .isEqualTo(Reason.NO_MATCHING_SIGNATURE);
        String nearbyTimestamp = Long.toString(timestamp + (random.nextBoolean() ? 1 : -1));
        assertThat(reason(verifier, id, nearbyTimestamp, signature, body))
                .as(why)
                .isIn(Reason.NO_MATCHING_SIGNATURE, Reason.TIMESTAMP_TOO_OLD, Reason.TIMESTAMP_TOO_NEW);
    }

    private static Reason reason(WebhookVerifier verifier, String id, String timestamp, String signature, byte[] body) {
        WebhookVerificationException e = catchThrowableOfType(
                WebhookVerificationException.class,
                () -> verifier.verify(WebhookVerifierTest.headers(id, timestamp, signature), body));
        assertThat(e).isNotNull();
        return e.reason();
    }

    private static String randomId(Random random) {
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
        StringBuilder id = new StringBuilder("msg_");
        int length = 1 + random.nextInt(40);
        for (int i = 0; i < length; i++) {
            id.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return id.toString();
    }
}

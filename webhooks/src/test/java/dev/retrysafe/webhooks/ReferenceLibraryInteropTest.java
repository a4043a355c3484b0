package dev.retrysafe.webhooks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Interoperability in both directions with the reference Standard Webhooks JavaScript library:
 * receivers using it accept what we sign, and we accept what it signs. See {@link ReferenceLibrary}
 * for how it is installed (once, by npm, into target/js) and run (node, locally).
 */
class ReferenceLibraryInteropTest {

    private static final int CASES = 60;

    @BeforeAll
    static void installReferenceLibrary() throws Exception {
        ReferenceLibrary.install();
    }

    @Test
    void referenceLibraryAcceptsWhatWeSign() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        // the reference verifier compares with the real time, so the timestamps are now
        long now = Instant.now().getEpochSecond();
        List<ReferenceLibrary.Case> genuine = new ArrayList<>();
        List<ReferenceLibrary.Case> tampered = new ArrayList<>();
        for (int i = 0; i < CASES; i++) {
            WebhookSecret secret = randomSecret(random);
            WebhookSecret other = WebhookSecret.generate();
            String id = "msg_" + Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
            byte[] body = randomJson(random).getBytes(UTF_8);
            // every third delivery is signed during a rotation: the receiver knows one of two secrets
            WebhookSigner signer = i % 3 == 0 ? WebhookSigner.of(other, secret) : WebhookSigner.of(secret);
            String signature = signer.sign(id, now, body);
            genuine.add(new ReferenceLibrary.Case(secret.encoded(), id, now, signature, body));
            byte[] changed = (new String(body, UTF_8) + " ").getBytes(UTF_8);
            tampered.add(new ReferenceLibrary.Case(secret.encoded(), id, now, signature, changed));
        }

        assertThat(ReferenceLibrary.run("verify", genuine))
                .as("seed " + seed)
                .hasSize(CASES)
                .containsOnly("ok");
        assertThat(ReferenceLibrary.run("verify", tampered))
                .as("seed " + seed + ": the harness can say no")
                .allMatch(line -> line.startsWith("rejected: No matching signature"));
    }

    @Test
    void weAcceptWhatTheReferenceLibrarySigns() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<ReferenceLibrary.Case> cases = new ArrayList<>();
        List<WebhookSecret> secrets = new ArrayList<>();
        for (int i = 0; i < CASES; i++) {
            WebhookSecret secret = randomSecret(random);
            String id = "msg_" + Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
            long timestamp = 1_500_000_000L + random.nextInt(500_000_000);
            secrets.add(secret);
            cases.add(new ReferenceLibrary.Case(
                    secret.encoded(), id, timestamp, "", randomJson(random).getBytes(UTF_8)));
        }
        cases.add(new ReferenceLibrary.Case(
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330,
                "",
                "{\"test\": 2432232314}".getBytes(UTF_8)));
        secrets.add(WebhookSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));

        List<String> signatures = ReferenceLibrary.run("sign", cases);

        assertThat(signatures.getLast()).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        for (int i = 0; i < cases.size(); i++) {
            ReferenceLibrary.Case c = cases.get(i);
            String why = "seed " + seed + ", case " + i;
            WebhookVerifier verifier = WebhookVerifier.builder()
                    .secret(secrets.get(i))
                    .clock(Clock.fixed(Instant.ofEpochSecond(c.timestamp()), ZoneOffset.UTC))
                    .build();
            VerifiedWebhook verified = verifier.verify(
                    WebhookVerifierTest.headers(c.id(), Long.toString(c.timestamp()), signatures.get(i)), c.body());
            assertThat(verified.body()).as(why).isEqualTo(c.body());
            assertThat(WebhookSigner.of(secrets.get(i)).sign(c.id(), c.timestamp(), c.body()))
                    .as(why)
                    .isEqualTo(signatures.get(i));
        }
    }

    private static WebhookSecret randomSecret(Random random) {
        byte[] key = new byte
                [WebhookSecret.MIN_BYTES + random.nextInt(WebhookSecret.MAX_BYTES - WebhookSecret.MIN_BYTES + 1)];
        random.nextBytes(key);
        return WebhookSecret.fromBytes(key);
    }

    /** A JSON object with text beyond ASCII, escapes and irregular spacing: bytes must survive as sent. */
    private static String randomJson(Random random) {
        String[] words = {"invoice.paid", "Zoë", "日本語", "emoji 🎉", "quote \\\" inside", "tab\\t", "a.b.c", "", " "};
        StringBuilder json = new StringBuilder("{");
        int fields = random.nextInt(6);
        for (int i = 0; i < fields; i++) {
            if (i > 0) {
                json.append(random.nextBoolean() ? "," : ", ");
            }
            json.append("\"k")
                    .append(i)
                    .append("\":")
                    .append(random.nextBoolean() ? " " : "")
                    .append(
                            random.nextBoolean()
                                    ? random.nextInt()
                                    : "\"" + words[random.nextInt(words.length)] + "\"");
        }
        return json.append(random.nextBoolean() ? "}" : "}\n").toString();
    }
}

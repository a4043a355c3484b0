package dev.retrysafe.bench.webhooks;

import dev.retrysafe.webhooks.HeaderLookup;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookSigner;
import dev.retrysafe.webhooks.WebhookVerificationException;
import dev.retrysafe.webhooks.WebhookVerifier;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Does rejecting a forged signature take longer the more of its leading bytes are right? An
 * attacker timing the verifier could otherwise find a valid signature byte by byte. Each case
 * forges the 32-byte HMAC with its first {@code correctBytes} right and the rest wrong (0: all
 * wrong; 31: only the last byte wrong), plus the genuine signature for reference. The times of
 * the forged cases must not grow with {@code correctBytes} (issue 4); docs/benchmarks.md holds
 * the figures.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class ForgedSignatureBenchmark {

    private static final long TIMESTAMP = 1_796_000_000L;
    private static final String ID = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";

    /** How many leading bytes of the forged HMAC equal the genuine one. */
    @Param({"0", "1", "8", "16", "24", "31"})
    public int correctBytes;

    private final byte[] body = ("{\"type\":\"payment.succeeded\",\"data\":{\"id\":\"pay_1\",\"amount\":500,"
                    + "\"currency\":\"eur\"}}")
            .getBytes(StandardCharsets.UTF_8);
    private WebhookVerifier verifier;
    private HeaderLookup forged;
    private HeaderLookup genuine;

    @Setup(Level.Trial)
    public void setUp() {
        WebhookSecret secret = WebhookSecret.generate();
        verifier = WebhookVerifier.builder()
                .secret(secret)
                .clock(Clock.fixed(Instant.ofEpochSecond(TIMESTAMP), ZoneOffset.UTC))
                .build();
        String signature = WebhookSigner.of(secret).sign(ID, TIMESTAMP, body);
        byte[] mac = Base64.getDecoder().decode(signature.substring("v1,".length()));
        byte[] guess = mac.clone();
        for (int i = correctBytes; i < guess.length; i++) {
            guess[i] = (byte) ~guess[i];
        }
        forged = headers("v1," + Base64.getEncoder().encodeToString(guess));
        genuine = headers(signature);
    }

    private static HeaderLookup headers(String signature) {
        return HeaderLookup.of(Map.of(
                "webhook-id", ID, "webhook-timestamp", Long.toString(TIMESTAMP), "webhook-signature", signature));
    }

    /** Rejecting the forged signature: the time must not depend on {@code correctBytes}. */
    @Benchmark
    public Object rejectForged() {
        try {
            return verifier.verify(forged, body);
        } catch (WebhookVerificationException expected) {
            return expected.reason();
        }
    }

    /** Accepting the genuine signature, for reference (the same work plus the result). */
    @Benchmark
    public Object acceptGenuine() throws WebhookVerificationException {
        return verifier.verify(genuine, body);
    }
}

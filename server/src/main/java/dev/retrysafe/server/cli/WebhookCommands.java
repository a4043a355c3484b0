package dev.retrysafe.server.cli;

import dev.retrysafe.webhooks.HeaderLookup;
import dev.retrysafe.webhooks.SignedHeaders;
import dev.retrysafe.webhooks.WebhookSigner;
import dev.retrysafe.webhooks.WebhookVerificationException;
import dev.retrysafe.webhooks.WebhookVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;

/**
 * {@code webhooks sign}, {@code webhooks verify} and {@code webhooks listen}: the library's signer,
 * verifier and a receiver for people trying out or debugging an integration. The body of
 * {@code sign} and {@code verify} is standard input, byte for byte.
 */
public final class WebhookCommands {

    /** Exit code of a rejected delivery, and of an id the signer refuses. */
    static final int REJECTED = 1;

    private WebhookCommands() {}

    /** Prints the signature header of the body on {@code in}; returns the exit code. */
    public static int sign(Command.WebhookSign command, InputStream in, PrintStream out, PrintStream err)
            throws IOException {
        byte[] body = in.readAllBytes();
        try {
            out.println(WebhookSigner.builder()
                    .secrets(command.secrets())
                    .build()
                    .sign(command.id(), command.timestamp(), body));
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("retrysafe: " + e.getMessage());
            return REJECTED;
        }
    }

    /**
     * Receives webhooks on 127.0.0.1 until the process is stopped, printing each one; returns
     * (with exit code 1) only when the port cannot be had.
     */
    public static int listen(Command.WebhookListen command, PrintStream out, PrintStream err, Clock clock)
            throws InterruptedException {
        try {
            WebhookListener listener = WebhookListener.start(command.port(), command.secrets(), out, clock);
            out.println("Listening for webhooks on " + listener.url() + " (Ctrl-C stops it)");
        } catch (IOException e) {
            err.println("retrysafe: cannot listen on 127.0.0.1:" + command.port() + ": " + e.getMessage());
            return REJECTED;
        }
        new CountDownLatch(1).await(); // until SIGTERM or Ctrl-C ends the JVM
        return 0;
    }

    /** Prints {@code ok} or why the body on {@code in} was rejected; returns the exit code. */
    public static int verify(
            Command.WebhookVerify command, InputStream in, PrintStream out, PrintStream err, Clock clock)
            throws IOException {
        byte[] body = in.readAllBytes();
        WebhookVerifier verifier = WebhookVerifier.builder()
                .secrets(command.secrets())
                .clock(clockFor(command, clock))
                .build();
        try {
            verifier.verify(
                    HeaderLookup.of(Map.of(
                            SignedHeaders.WEBHOOK_ID,
                            command.id(),
                            SignedHeaders.WEBHOOK_TIMESTAMP,
                            command.timestamp(),
                            SignedHeaders.WEBHOOK_SIGNATURE,
                            command.signature())),
                    body);
            out.println("ok");
            return 0;
        } catch (WebhookVerificationException e) {
            out.println(e.reason() + ": " + e.getMessage());
            return REJECTED;
        }
    }

    /**
     * The time the timestamp is checked against. {@code --no-tolerance} stands the clock at the
     * message's own timestamp, so only the signature decides; an unreadable timestamp is then
     * left for the verifier to reject.
     */
    private static Clock clockFor(Command.WebhookVerify command, Clock clock) {
        @Nullable Long at = command.now();
        if (command.noTolerance()) {
            try {
                at = Long.parseLong(command.timestamp());
            } catch (NumberFormatException e) {
                return clock;
            }
        }
        try {
            return at == null ? clock : Clock.fixed(Instant.ofEpochSecond(at), ZoneOffset.UTC);
        } catch (DateTimeException e) {
            return clock; // beyond the year 1000000000: the verifier answers for it
        }
    }
}

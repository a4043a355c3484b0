package dev.retrysafe.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.cli.Main;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ./run webhooks sign|verify}, in-process, with the body on standard input. */
class WebhooksCommandTest {

    // the Standard Webhooks specification's test vector (see StandardWebhooksTestVectorsTest)
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final String ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    private static final String TIMESTAMP = "1614265330";
    private static final String BODY = "{\"test\": 2432232314}";
    private static final String SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String body, String... args) {
        return Main.run(
                args,
                Map.of(),
                new ByteArrayInputStream(body.getBytes(UTF_8)),
                new PrintStream(out, true, UTF_8),
                new PrintStream(err, true, UTF_8));
    }

    private String out() {
        return out.toString(UTF_8);
    }

    private String err() {
        return err.toString(UTF_8);
    }

    @Test
    void signPrintsTheSignatureHeaderOfStandardInput() {
        assertThat(run(BODY, "webhooks", "sign", "--secret", SECRET, "--id", ID, "--timestamp", TIMESTAMP))
                .as(err())
                .isZero();

        assertThat(out()).isEqualTo(SIGNATURE + System.lineSeparator());
    }

    @Test
    void signWithTwoSecretsPrintsBothSignatures() {
        String other = "whsec_" + "A".repeat(43) + "=";

        assertThat(run(
                        BODY,
                        "webhooks",
                        "sign",
                        "--secret",
                        SECRET,
                        "--secret=" + other,
                        "--id",
                        ID,
                        "--timestamp",
                        TIMESTAMP))
                .as(err())
                .isZero();

        assertThat(out().strip().split(" ")).hasSize(2).startsWith(SIGNATURE);
    }

    @Test
    void verifyOfAnOldMessagePrintsTheReasonAndExitsWithOne() {
        assertThat(run(
                        BODY,
                        "webhooks",
                        "verify",
                        "--secret",
                        SECRET,
                        "--id",
                        ID,
                        "--timestamp",
                        TIMESTAMP,
                        "--signature",
                        SIGNATURE))
                .isEqualTo(1);

        assertThat(out()).startsWith("TIMESTAMP_TOO_OLD: timestamp outside tolerance");
    }

    @Test
    void verifyAtTheMessagesTimeOrWithoutToleranceSaysOk() {
        assertThat(run(
                        BODY,
                        "webhooks",
                        "verify",
                        "--secret",
                        SECRET,
                        "--id",
                        ID,
                        "--timestamp",
                        TIMESTAMP,
                        "--signature",
                        SIGNATURE,
                        "--now",
                        "1614265400"))
                .as(out() + err())
                .isZero();
        assertThat(out()).isEqualTo("ok" + System.lineSeparator());

        out.reset();
        assertThat(run(
                        BODY,
                        "webhooks",
                        "verify",
                        "--secret",
                        SECRET,
                        "--id",
                        ID,
                        "--timestamp",
                        TIMESTAMP,
                        "--signature",
                        SIGNATURE,
                        "--no-tolerance"))
                .as(out() + err())
                .isZero();
        assertThat(out()).isEqualTo("ok" + System.lineSeparator());
    }

    @Test
    void verifyOfAChangedBodyIsASignatureMismatch() {
        assertThat(run(
                        BODY + "\n",
                        "webhooks",
                        "verify",
                        "--secret",
                        SECRET,
                        "--id",
                        ID,
                        "--timestamp",
                        TIMESTAMP,
                        "--signature",
                        SIGNATURE,
                        "--no-tolerance"))
                .isEqualTo(1);

        assertThat(out()).startsWith("NO_MATCHING_SIGNATURE: signature mismatch");
    }

    @Test
    void verifyUsesTheCurrentTimeByDefault() {
        String now = Long.toString(Instant.now().getEpochSecond());
        run(BODY, "webhooks", "sign", "--secret", SECRET, "--id", ID, "--timestamp", now);
        String signature = out().strip();
        out.reset();

        assertThat(run(
                        BODY,
                        "webhooks",
                        "verify",
                        "--secret",
                        SECRET,
                        "--id",
                        ID,
                        "--timestamp",
                        now,
                        "--signature",
                        signature))
                .as(out())
                .isZero();
    }

    @Test
    void malformedSecretIsABadCommandLineThatNeverEchoesTheSecret() {
        String bare = SECRET.substring("whsec_".length());

        assertThat(run(BODY, "webhooks", "sign", "--secret", bare, "--id", ID, "--timestamp", TIMESTAMP))
                .isEqualTo(2);

        assertThat(err()).contains("must start with 'whsec_'").doesNotContain(bare);
        assertThat(out()).isEmpty();
    }

    @Test
    void badWebhookCommandLinesExitWithTwoAndSayWhy() {
        assertThat(run("", "webhooks")).isEqualTo(2);
        assertThat(run("", "webhooks", "frobnicate")).isEqualTo(2);
        assertThat(run("", "webhooks", "sign", "--id", ID, "--timestamp", TIMESTAMP))
                .isEqualTo(2);
        assertThat(run("", "webhooks", "sign", "--secret", SECRET, "--timestamp", TIMESTAMP))
                .isEqualTo(2);
        assertThat(run("", "webhooks", "sign", "--secret", SECRET, "--id", ID, "--timestamp", "yesterday"))
                .isEqualTo(2);
        assertThat(run(
                        "",
                        "webhooks",
                        "sign",
                        "--secret",
                        SECRET,
                        "--id",
                        ID,
                        "--timestamp",
                        TIMESTAMP,
                        "--signature",
                        SIGNATURE))
                .isEqualTo(2);
        assertThat(run("", "webhooks", "verify", "--secret", SECRET, "--id", ID, "--timestamp", TIMESTAMP))
                .isEqualTo(2);
        assertThat(run(
                        "",
                        "webhooks",
                        "verify",
                        "--secret",
                        SECRET,
                        "--id",
                        ID,
                        "--timestamp",
                        TIMESTAMP,
                        "--signature",
                        SIGNATURE,
                        "--now",
                        "1",
                        "--no-tolerance"))
                .isEqualTo(2);
        assertThat(run("", "webhooks", "listen", "--port", "9000")).isEqualTo(2);
        assertThat(run("", "webhooks", "listen", "--secret", SECRET, "--port", "65536"))
                .isEqualTo(2);
        assertThat(run("", "webhooks", "listen", "--secret", SECRET, "--no-tolerance"))
                .isEqualTo(2);

        assertThat(err())
                .contains("sign, verify or listen")
                .contains("webhooks listen needs --secret")
                .contains("--port must be 0 to 65535, was '65536'")
                .contains("unknown option '--no-tolerance' for webhooks listen")
                .contains("needs --secret")
                .contains("needs --id")
                .contains("--timestamp must be seconds")
                .contains("unknown option '--signature' for webhooks sign")
                .contains("needs --signature")
                .contains("either --now or --no-tolerance");
        assertThat(out()).isEmpty();
    }

    @Test
    void idTheSignerRefusesExitsWithOne() {
        assertThat(run(BODY, "webhooks", "sign", "--secret", SECRET, "--id", "msg.1", "--timestamp", TIMESTAMP))
                .isEqualTo(1);

        assertThat(err()).contains("'.'");
    }

    @Test
    void helpListsTheWebhookCommands() {
        assertThat(run("", "--help")).isZero();

        assertThat(out())
                .contains(
                        "webhooks sign",
                        "webhooks verify",
                        "--signature",
                        "--no-tolerance",
                        "--now",
                        "webhooks listen",
                        "--port");
    }
}

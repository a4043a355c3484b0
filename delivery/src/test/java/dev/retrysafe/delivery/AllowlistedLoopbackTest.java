package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same loopback receiver the corpus refuses is reached with the allowlist on
 * ({@code 127.0.0.0/8}, {@code ::1/128}) and {@code https} not required, and only at the address
 * that was checked.
 */
class AllowlistedLoopbackTest {

    private static final byte[] BODY = "{\"type\":\"payment.succeeded\"}".getBytes(UTF_8);

    private final FakeResolver dns = new FakeResolver()
            .answer("localhost", "127.0.0.1")
            .answer("receiver.test", "127.0.0.1")
            .answer("receiver6.test", "::1");
    private final RecordingGate gate = RecordingGate.loopbackOnly();
    private RawReceiver receiver;
    private RawReceiver receiver6;
    private HttpAttemptSender sender;

    @BeforeEach
    void start() throws IOException {
        RawReceiver.Behaviour ok = (socket, request) -> RawReceiver.answer(socket, "200 OK", "", "ok");
        receiver = RawReceiver.on127(ok);
        receiver6 = RawReceiver.onIpv6Loopback(ok);
        TargetGuard guard = TargetGuard.builder()
                .resolver(dns)
                .allowPrivateTargets(List.of("127.0.0.0/8", "::1/128"))
                .requireHttps(false)
                .build();
        sender = HttpAttemptSender.builder()
                .guard(guard)
                .timeout(Duration.ofSeconds(5))
                .connectGate(gate)
                .build();
    }

    @AfterEach
    void stop() throws IOException {
        sender.close();
        receiver.close();
        receiver6.close();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "127.0.0.1",
                "127.1",
                "0x7f.1",
                "0177.0.0.1",
                "2130706433",
                "localhost",
                "LOCALHOST.",
                "receiver.test",
                "[::ffff:127.0.0.1]"
            })
    void loopbackSpellingsReachTheIpv4Receiver(String host) {
        URI url = URI.create("http://" + host + ":" + receiver.port() + "/hook");

        AttemptResult result = sender.send(url, Map.of("webhook-id", "msg_1"), BODY);

        assertThat(result.outcome()).as(host).isEqualTo(Outcome.SUCCESS);
        assertThat(gate.seen())
                .containsExactly(new InetSocketAddress(FakeResolver.literal("127.0.0.1"), receiver.port()));
        assertThat(receiver.requests()).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"[::1]", "[0:0:0:0:0:0:0:1]", "receiver6.test"})
    void ipv6LoopbackReachesTheIpv6Receiver(String host) {
        URI url = URI.create("http://" + host + ":" + receiver6.port() + "/hook");

        assertThat(sender.send(url, Map.of(), BODY).outcome()).as(host).isEqualTo(Outcome.SUCCESS);
        assertThat(gate.seen()).containsExactly(new InetSocketAddress(FakeResolver.literal("::1"), receiver6.port()));
    }

    @Test
    void everyAttemptResolvesOnceAndJettyNeverResolvesAgain() {
        URI url = URI.create("http://receiver.test:" + receiver.port() + "/hook");

        for (int i = 0; i < 3; i++) {
            assertThat(sender.send(url, Map.of(), BODY).outcome()).isEqualTo(Outcome.SUCCESS);
        }

        // one question per attempt, all from the guard; the connection is reused across attempts
        assertThat(dns.questions()).containsExactly("receiver.test", "receiver.test", "receiver.test");
        assertThat(receiver.requests())
                .hasSize(3)
                .allSatisfy(r -> assertThat(r.headers()).containsEntry("host", "receiver.test:" + receiver.port()));
    }

    @Test
    void privateBlocksThatAreNotListedStayRefused() {
        dns.answer("internal.example.com", "10.0.0.1");

        assertThat(sender.send(URI.create("http://internal.example.com/"), Map.of(), BODY)
                        .outcome())
                .isEqualTo(Outcome.BLOCKED);
        assertThat(sender.send(URI.create("http://169.254.169.254/"), Map.of(), BODY)
                        .outcome())
                .isEqualTo(Outcome.BLOCKED);
        assertThat(gate.seen()).isEmpty();
    }
}

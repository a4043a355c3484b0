package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.testkit.FakeClock;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sender against receivers on loopback that behave and that do not: each hostile case is a
 * failed attempt of the right class, and a normal delivery right after it succeeds on the same
 * sender. Timeouts are short (500 ms); assertions are on outcome classes, not timings.
 */
class HttpAttemptSenderTest {

    private static final String SIGNATURE = "v1,c2VjcmV0LXNpZ25hdHVyZS1tdXN0LW5vdC1sZWFr";
    private static final Map<String, String> SIGNED = Map.of(
            "webhook-id", "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
            "webhook-timestamp", "1767225600",
            "webhook-signature", SIGNATURE);
    private static final byte[] BODY =
            "{\"id\":\"evt_1\",\"type\":\"payment.succeeded\",\"data\":{\"amount\":4200}}".getBytes(UTF_8);
    private static final Duration TIMEOUT = Duration.ofMillis(500);

    private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<RawReceiver> receivers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private RawReceiver healthy;
    private HttpAttemptSender sender;

    /**
     * One exchange before any test, with a long timeout: the first request of a JVM loads and
     * links most of Jetty, which can take longer than the 500 ms the tests give a receiver.
     */
    @BeforeAll
    static void warmUp() throws IOException {
        try (RawReceiver receiver =
                        RawReceiver.on127((socket, request) -> RawReceiver.answer(socket, "200 OK", "", "ok"));
                HttpAttemptSender warm = HttpAttemptSender.builder()
                        .guard(TargetGuard.builder()
                                .allowPrivateTargets(List.of("127.0.0.0/8"))
                                .requireHttps(false)
                                .build())
                        .timeout(Duration.ofSeconds(30))
                        .connectGate(RecordingGate.loopbackOnly())
                        .build()) {
            assertThat(warm.send(receiver.url(), Map.of(), BODY).outcome()).isEqualTo(Outcome.SUCCESS);
        }
    }

    @BeforeEach
    void start() throws IOException {
        healthy = receiver((socket, request) -> RawReceiver.answer(socket, "200 OK", "", "{\"ok\":true}"));
        TargetGuard guard = TargetGuard.builder()
                .allowPrivateTargets(List.of("127.0.0.0/8"))
                .requireHttps(false)
                .resolver(new FakeResolver())
                .build();
        sender = HttpAttemptSender.builder()
                .guard(guard)
                .timeout(TIMEOUT)
                .clock(clock)
                .connectGate(RecordingGate.loopbackOnly())
                .build();
    }

    @AfterEach
    void stop() throws IOException {
        sender.close();
        for (RawReceiver receiver : receivers) {
            receiver.close();
        }
    }

    // --- receivers that behave ---------------------------------------------------------------

    @Test
    void postsExactlyTheBodyWithJsonTypeUserAgentAndTheGivenHeaders() {
        AttemptResult result = sender.send(healthy.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
        assertThat(result.status()).isEqualTo(200);
        assertThat(result.snippet()).isEqualTo("{\"ok\":true}");
        assertThat(result.latency()).isPositive();
        RawReceiver.Received request = healthy.requests().getFirst();
        assertThat(request.requestLine()).isEqualTo("POST /hook HTTP/1.1");
        assertThat(request.body()).isEqualTo(BODY);
        assertThat(request.headers())
                .containsEntry("content-type", "application/json")
                .containsEntry("user-agent", HttpAttemptSender.USER_AGENT)
                .containsEntry("webhook-id", "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W")
                .containsEntry("webhook-timestamp", "1767225600")
                .containsEntry("webhook-signature", SIGNATURE)
                .containsEntry("host", "127.0.0.1:" + healthy.port())
                .doesNotContainKeys("accept-encoding", "cookie", "authorization");
        assertThat(HttpAttemptSender.USER_AGENT).startsWith("Retrysafe-Webhooks/");
    }

    @Test
    void anErrorStatusKeepsTheStartOfTheBody() {
        RawReceiver failing = receiver((socket, request) ->
                RawReceiver.answer(socket, "500 Internal Server Error", "", "{\"error\":\"database is down\"}"));

        AttemptResult result = sender.send(failing.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.HTTP_ERROR);
        assertThat(result.status()).isEqualTo(500);
        assertThat(result.snippet()).isEqualTo("{\"error\":\"database is down\"}");
        assertThat(result.succeeded()).isFalse();
        assertHealthy();
    }

    @Test
    void retryAfterInSecondsIsReported() {
        RawReceiver busy = receiver(
                (socket, request) -> RawReceiver.answer(socket, "429 Too Many Requests", "Retry-After: 120\r\n", ""));

        AttemptResult result = sender.send(busy.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.HTTP_ERROR);
        assertThat(result.status()).isEqualTo(429);
        assertThat(result.retryAfter()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void retryAfterAsAnHttpDateIsAWaitFromTheClock() {
        RawReceiver busy = receiver((socket, request) -> RawReceiver.answer(
                socket, "503 Service Unavailable", "Retry-After: Thu, 01 Jan 2026 00:05:00 GMT\r\n", ""));

        assertThat(sender.send(busy.url(), SIGNED, BODY).retryAfter()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void anInvalidRetryAfterIsIgnored() {
        RawReceiver busy = receiver((socket, request) ->
                RawReceiver.answer(socket, "503 Service Unavailable", "Retry-After: later\r\n", ""));

        AttemptResult result = sender.send(busy.url(), SIGNED, BODY);

        assertThat(result.status()).isEqualTo(503);
        assertThat(result.retryAfter()).isNull();
    }

    // --- hostile receivers -------------------------------------------------------------------

    @Test
    void aReceiverThatNeverAnswersIsATimeout() {
        RawReceiver silent = receiver((socket, request) -> RawReceiver.waitForClientToLeave(socket));

        AttemptResult result = sender.send(silent.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.TIMEOUT);
        assertThat(result.status()).isNull();
        assertThat(result.detail()).doesNotContain(SIGNATURE);
        assertHealthy();
    }

    @Test
    void aReceiverThatHangsAfterTheHeadersIsATimeout() {
        RawReceiver stalling = receiver((socket, request) -> {
            socket.getOutputStream()
                    .write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"ok\"".getBytes(ISO_8859_1));
            socket.getOutputStream().flush();
            RawReceiver.waitForClientToLeave(socket);
        });

        AttemptResult result = sender.send(stalling.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.TIMEOUT);
        assertThat(result.status()).as("an incomplete answer has no status").isNull();
        assertHealthy();
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 302, 303, 307, 308})
    void aRedirectToAnInternalAddressIsAnErrorAndNotFollowed(int status) throws IOException {
        RawReceiver internal =
                receiver((socket, request) -> RawReceiver.answer(socket, "200 OK", "", "secret admin page"));
        RawReceiver redirecting = receiver((socket, request) -> RawReceiver.answer(
                socket, status + " Moved", "Location: http://127.0.0.1:" + internal.port() + "/admin\r\n", ""));

        AttemptResult result = sender.send(redirecting.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.HTTP_ERROR);
        assertThat(result.status()).isEqualTo(status);
        assertThat(result.detail()).contains("not followed");
        assertThat(internal.connections())
                .as("the redirect target was never contacted")
                .isZero();
        assertHealthy();
    }

    @Test
    void aRedirectToCloudMetadataIsNotFollowed() {
        RawReceiver redirecting = receiver((socket, request) ->
                RawReceiver.answer(socket, "302 Found", "Location: http://169.254.169.254/latest/meta-data/\r\n", ""));

        AttemptResult result = sender.send(redirecting.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.HTTP_ERROR);
        assertThat(result.status()).isEqualTo(302);
        assertHealthy();
    }

    @Test
    void aResetConnectionIsAConnectionError() {
        RawReceiver resetting = receiver((socket, request) -> {
            socket.setSoLinger(true, 0); // close with RST instead of FIN
            socket.close();
        });

        AttemptResult result = sender.send(resetting.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.CONNECTION_ERROR);
        assertThat(result.detail()).doesNotContain(SIGNATURE);
        assertHealthy();
    }

    @Test
    void aConnectionClosedWithoutAnAnswerIsAConnectionError() {
        RawReceiver closing = receiver((socket, request) -> socket.close());

        assertThat(sender.send(closing.url(), SIGNED, BODY).outcome()).isEqualTo(Outcome.CONNECTION_ERROR);
        assertHealthy();
    }

    @Test
    void aRefusedConnectionIsAConnectionError() throws IOException {
        RawReceiver gone = receiver((socket, request) -> {});
        URI url = gone.url();
        gone.close(); // nothing listens on the port any more

        assertThat(sender.send(url, SIGNED, BODY).outcome()).isEqualTo(Outcome.CONNECTION_ERROR);
        assertHealthy();
    }

    @Test
    void garbageInsteadOfHttpIsAProtocolError() {
        RawReceiver garbage = receiver((socket, request) -> {
            socket.getOutputStream().write("SSH-2.0-OpenSSH_9.6\r\n\r\n".getBytes(ISO_8859_1));
            socket.getOutputStream().flush();
            RawReceiver.waitForClientToLeave(socket);
        });

        assertThat(sender.send(garbage.url(), SIGNED, BODY).outcome())
                .isIn(Outcome.PROTOCOL_ERROR, Outcome.CONNECTION_ERROR);
        assertHealthy();
    }

    @Test
    void aHundredMegabyteBodyIsReadOnlyToItsFirstKibibyte() throws Exception {
        long hundredMegabytes = 100L * 1024 * 1024;
        AtomicLong written = new AtomicLong();
        CountDownLatch receiverDone = new CountDownLatch(1);
        RawReceiver flooding = receiver((socket, request) -> {
            // a small send buffer so that what the receiver managed to write is close to what we read
            socket.setSendBufferSize(16 * 1024);
            byte[] chunk = new byte[16 * 1024];
            Arrays.fill(chunk, (byte) 'x');
            try {
                OutputStream out = socket.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + hundredMegabytes + "\r\n\r\n").getBytes(ISO_8859_1));
                while (written.get() < hundredMegabytes) {
                    out.write(chunk);
                    written.addAndGet(chunk.length);
                }
            } finally {
                receiverDone.countDown();
            }
        });

        AttemptResult result = sender.send(flooding.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
        assertThat(result.status()).isEqualTo(200);
        assertThat(result.snippet()).hasSize(AttemptResult.MAX_SNIPPET_BYTES).matches("x+");
        // the sender dropped the connection: the receiver's writes fail long before 100 MB
        assertThat(receiverDone.await(10, TimeUnit.SECONDS))
                .as("the receiver's write failed")
                .isTrue();
        assertThat(written.get()).as("bytes the receiver managed to write").isLessThan(16L * 1024 * 1024);
        assertHealthy();
    }

    @Test
    void aHundredMegabyteErrorBodyIsAlsoCutAtOneKibibyte() {
        RawReceiver flooding = receiver((socket, request) -> {
            OutputStream out = socket.getOutputStream();
            out.write("HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(ISO_8859_1));
            byte[] chunk = ("4000\r\n" + "y".repeat(0x4000) + "\r\n").getBytes(ISO_8859_1);
            for (int i = 0; i < 6400; i++) {
                out.write(chunk);
            }
        });

        AttemptResult result = sender.send(flooding.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.HTTP_ERROR);
        assertThat(result.status()).isEqualTo(500);
        assertThat(result.snippet()).hasSize(AttemptResult.MAX_SNIPPET_BYTES);
        assertHealthy();
    }

    @Test
    void aSnippetCutInsideAMultiByteCharacterIsDecodedWithAReplacement() {
        String euros = "€".repeat(400); // 1200 bytes: the cut falls inside a character
        RawReceiver receiver = receiver((socket, request) -> RawReceiver.answer(socket, "200 OK", "", euros));

        AttemptResult result = sender.send(receiver.url(), SIGNED, BODY);

        assertThat(result.snippet()).startsWith("€€€").endsWith("\uFFFD");
    }

    // --- the sender itself -------------------------------------------------------------------

    @Test
    void headersTheSenderOwnsOrThatCouldInjectAreRefused() {
        assertThatThrownBy(() -> sender.send(healthy.url(), Map.of("Host", "evil"), BODY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sender.send(healthy.url(), Map.of("Content-Length", "1"), BODY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sender.send(healthy.url(), Map.of("x-a", "1\r\nx-b: 2"), BODY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("x-b");
        assertThatThrownBy(() -> sender.send(healthy.url(), Map.of("bad name", "1"), BODY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(healthy.connections()).isZero();
    }

    @Test
    void aClosedSenderFailsAttemptsWithoutSending() {
        sender.close();

        AttemptResult result = sender.send(healthy.url(), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.CONNECTION_ERROR);
        assertThat(healthy.connections()).isZero();
    }

    @Test
    void builderRejectsNonsenseNamingTheValue() {
        assertThatThrownBy(() -> HttpAttemptSender.builder().timeout(Duration.ZERO))
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> HttpAttemptSender.builder().timeout(Duration.ofHours(1)))
                .hasMessageContaining("PT1H");
        assertThatThrownBy(() -> HttpAttemptSender.builder().maxConnectionsPerDestination(0))
                .hasMessageContaining("0");
        assertThatThrownBy(() -> HttpAttemptSender.builder().idleTimeout(Duration.ofMillis(-1)))
                .hasMessageContaining("PT-0.001S");
    }

    @Test
    void concurrentAttemptsAllSucceed() throws Exception {
        int attempts = 50;
        CountDownLatch startGate = new CountDownLatch(1);
        List<java.util.concurrent.Future<AttemptResult>> results = new java.util.ArrayList<>();
        // about sharing one sender, not about timeouts: 50 attempts queue for 10 connections
        try (var workers = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
                HttpAttemptSender shared = HttpAttemptSender.builder()
                        .guard(TargetGuard.builder()
                                .allowPrivateTargets(List.of("127.0.0.0/8"))
                                .requireHttps(false)
                                .build())
                        .timeout(Duration.ofSeconds(10))
                        .connectGate(RecordingGate.loopbackOnly())
                        .build()) {
            for (int i = 0; i < attempts; i++) {
                results.add(workers.submit(() -> {
                    startGate.await();
                    return shared.send(healthy.url(), SIGNED, BODY);
                }));
            }
            startGate.countDown();
            for (var result : results) {
                assertThat(result.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.SUCCESS);
            }
        }
        assertThat(healthy.requests()).hasSize(attempts);
    }

    private void assertHealthy() {
        AttemptResult after = sender.send(healthy.url(), SIGNED, BODY);
        assertThat(after.outcome())
                .as("a normal delivery after the hostile one")
                .isEqualTo(Outcome.SUCCESS);
    }

    private RawReceiver receiver(RawReceiver.Behaviour behaviour) {
        try {
            RawReceiver receiver = RawReceiver.on127(behaviour);
            receivers.add(receiver);
            return receiver;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}

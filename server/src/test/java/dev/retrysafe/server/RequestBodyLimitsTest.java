package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retrysafe.testkit.RawHttp;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a body costs before the application sees it: a declared length over the limit is refused
 * at once, a body that stops or trickles ends with a {@code 408} problem at its deadline, a
 * client that leaves mid-body is counted and costs nothing more, and the memory all bodies take
 * is bounded. Raw sockets, so that the client can lie and stall as an attacker would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestBodyLimitsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY = 4096;
    /** Long enough for loopback to deliver a whole small body, short enough for a quick suite. */
    private static final Duration BODY_TIMEOUT = Duration.ofMillis(1500);

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    private TestServer server;

    @BeforeAll
    void start() {
        server = TestServer.h2()
                .configure(c -> c.withLimits(c.limits()
                        .withMaxBodyBytes(MAX_BODY)
                        .withBodyDeadline(BODY_TIMEOUT, 200, Duration.ofMillis(500))
                        .withMaxBufferedBodyBytes(2L * MAX_BODY)))
                .start();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    /** Every POST and PATCH route, with a concrete path, with and without an Idempotency-Key. */
    Stream<Arguments> writeRoutes() {
        return server.routes().stream()
                .filter(r -> r.startsWith("POST ") || r.startsWith("PATCH "))
                .flatMap(r -> Stream.of(Arguments.of(r, true), Arguments.of(r, false)));
    }

    @ParameterizedTest(name = "{0} keyed={1}")
    @MethodSource("writeRoutes")
    void aDeclaredLengthOverTheLimitIsRefusedAtOnceWithoutReading(String route, boolean keyed) throws IOException {
        String method = route.substring(0, route.indexOf(' '));
        String path = route.substring(route.indexOf(' ') + 1).replaceAll("\\{[^}]+}", "x_" + UUID.randomUUID());
        try (Socket socket = connect()) {
            long started = System.nanoTime();
            send(socket, head(method, path, 1_000_000_000L, keyed) + "{\"amo");
            RawHttp.Answer answer = RawHttp.read(socket.getInputStream(), false);
            long millis = (System.nanoTime() - started) / 1_000_000;

            assertThat(answer.status()).as(answer.raw()).isEqualTo(413);
            assertThat(problem(answer).path("type").asText()).isEqualTo("/problems/request-too-large");
            assertThat(answer.header("Connection")).isEqualTo("close");
            assertThat(millis).as("answered without waiting for the body").isLessThan(100);
            assertThat(closed(socket.getInputStream()))
                    .as("the connection is closed")
                    .isTrue();
        }
    }

    @Test
    void aBodyThatStopsEndsWithA408ProblemAtItsDeadline() throws IOException {
        try (Socket socket = connect()) {
            long started = System.nanoTime();
            send(socket, head("POST", "/v1/payments", 200, true) + "{\"amount\": 500,");
            RawHttp.Answer answer = RawHttp.read(socket.getInputStream(), false);
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(answer.status()).as(answer.raw()).isEqualTo(408);
            assertThat(problem(answer).path("type").asText()).isEqualTo("/problems/request-body-timeout");
            assertThat(problem(answer).path("retryable").asBoolean()).isTrue();
            assertThat(answer.header("Connection")).isEqualTo("close");
            // the rate rule (200 B/s after 0.5 s) ends it before the 1.5 s deadline
            assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(500)).isLessThan(BODY_TIMEOUT.plusSeconds(2));
        }
        assertThat(payments()).as("nothing was done").isZero();
    }

    @Test
    void aBodyThatTricklesEndsWithA408AtTheDeadlineEvenWhileBytesKeepComing() throws Exception {
        try (Socket socket = connect()) {
            long started = System.nanoTime();
            send(socket, head("POST", "/v1/webhook_endpoints", 4000, false));
            // one byte every 50 ms: each resets an idle timer, none of them makes the rate
            RawHttp.Answer answer = null;
            for (int i = 0; i < 200 && answer == null; i++) {
                try {
                    send(socket, " ");
                } catch (IOException closed) {
                    break; // the server answered and closed: read the answer
                }
                if (socket.getInputStream().available() > 0) {
                    break;
                }
                Thread.sleep(50); // the client's own pace, not a wait for the server's state
            }
            answer = RawHttp.read(socket.getInputStream(), false);
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(answer.status()).as(answer.raw()).isEqualTo(408);
            assertThat(took).isLessThan(BODY_TIMEOUT.plusSeconds(2));
        }
    }

    @Test
    void aClientGoneMidBodyIsCountedAndTheServerCarriesOn() throws Exception {
        long before = metric("retrysafe_http_request_bodies_refused_total{reason=\"client_gone\"}");
        try (Socket socket = connect()) {
            send(socket, head("POST", "/v1/payments", 300, true) + "{\"amount\": 500,");
        } // closed mid-body
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> metric("retrysafe_http_request_bodies_refused_total{reason=\"client_gone\"}") > before);
        assertThat(Api.of(server)
                        .post(
                                "/v1/payments",
                                "{\"amount\": 500, \"currency\": \"eur\"}",
                                UUID.randomUUID().toString())
                        .status())
                .isEqualTo(201);
        assertThat(metric("retrysafe_http_request_body_buffered_bytes"))
                .as("every buffer given back")
                .isZero();
    }

    @Test
    void aChunkedBodyOverTheLimitIsRefusedOnceItProvesTooLong() throws IOException {
        try (Socket socket = connect()) {
            String chunk = "x".repeat(MAX_BODY + 10);
            send(
                    socket,
                    "POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + server.apiKey()
                            + "\r\nContent-Type: application/json\r\nIdempotency-Key: " + UUID.randomUUID()
                            + "\r\nTransfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(chunk.length()) + "\r\n"
                            + chunk + "\r\n");
            RawHttp.Answer answer = RawHttp.read(socket.getInputStream(), false);
            assertThat(answer.status()).as(answer.raw()).isEqualTo(413);
        }
    }

    @Test
    void pastTheMemoryBoundNewBodiesGetA503WithRetryAfter() throws Exception {
        // two bodies of 3 KiB each held half-way: their buffers take the whole bound of 8 KiB
        try (Socket first = connect();
                Socket second = connect();
                Socket third = connect()) {
            for (Socket s : List.of(first, second)) {
                send(s, head("POST", "/v1/payments", 4000, true) + " ".repeat(2100));
            }
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> metric("retrysafe_http_request_body_buffered_bytes") >= 2 * 4096);
            send(third, head("POST", "/v1/payments", 100, true) + " ".repeat(10));
            RawHttp.Answer answer = RawHttp.read(third.getInputStream(), false);

            assertThat(answer.status()).as(answer.raw()).isEqualTo(503);
            assertThat(problem(answer).path("type").asText()).isEqualTo("/problems/server-busy");
            assertThat(answer.header("Retry-After")).isEqualTo("1");
        }
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> metric("retrysafe_http_request_body_buffered_bytes") == 0);
    }

    /** A burst of connections waits in the kernel's queue instead of being dropped and retried a second later. */
    @Test
    void theListenerQueuesABurstOfConnections() {
        assertThat(server.acceptQueues()).containsExactly(HttpApp.ACCEPT_QUEUE);
    }

    private String head(String method, String path, long length, boolean keyed) {
        return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + server.apiKey()
                + "\r\nContent-Type: application/json\r\nContent-Length: " + length + "\r\n"
                + (keyed ? "Idempotency-Key: " + UUID.randomUUID() + "\r\n" : "") + "\r\n";
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
        socket.setSoTimeout((int) READ_TIMEOUT.toMillis());
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Whether the peer closed: the next read ends (or is reset) instead of timing out. */
    private static boolean closed(InputStream in) {
        try {
            return in.read() < 0;
        } catch (IOException reset) {
            return !(reset instanceof java.net.SocketTimeoutException);
        }
    }

    private static JsonNode problem(RawHttp.Answer answer) throws IOException {
        assertThat(answer.contentType()).startsWith("application/problem+json");
        return JSON.readTree(answer.body());
    }

    private long payments() {
        return Api.of(server).get("/v1/payments").body().path("data").size();
    }

    private long metric(String series) {
        String text = Api.of(server).get("/metrics").raw().body();
        return text.lines()
                .filter(l -> l.startsWith(series + " "))
                .findFirst()
                .map(l -> (long)
                        Double.parseDouble(l.substring(series.length() + 1).trim()))
                .orElseThrow(() -> new AssertionError("no " + series + " in /metrics"));
    }
}

package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.retrysafe.testkit.RawHttp;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What Jetty refuses before any filter runs (the request line, the HTTP version, a header) is the
 * client's error: a {@code 4xx} or {@code 505} problem of its own type, never {@code internal-error},
 * never retryable. Written on a raw socket, since no HTTP client sends these bytes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProtocolErrorsTest {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private TestServer server;

    @BeforeAll
    void start() {
        server = TestServer.h2().start();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    static Stream<Arguments> refusedRequests() {
        String host = "Host: 127.0.0.1\r\n";
        return Stream.of(
                Arguments.of("an HTTP/0.9 request line", "GET /\r\n", 505, "http-version-not-supported"),
                Arguments.of(
                        "an HTTP/0.9 request line to the API",
                        "GET /v1/payments\r\n\r\n",
                        505,
                        "http-version-not-supported"),
                Arguments.of("HTTP/0.9 by name", "GET / HTTP/0.9\r\n\r\n", 505, "http-version-not-supported"),
                Arguments.of(
                        "unknown version HTTP/1.7",
                        "GET /v1/payments HTTP/1.7\r\n" + host + "\r\n",
                        505,
                        "http-version-not-supported"),
                Arguments.of(
                        "unknown version HTTP/2.7",
                        "GET /v1/payments HTTP/2.7\r\n" + host + "\r\n",
                        505,
                        "http-version-not-supported"),
                Arguments.of(
                        "HTTP/3.0 over a plain connection",
                        "POST /v1/payments HTTP/3.0\r\n" + host + "\r\n",
                        505,
                        "http-version-not-supported"),
                Arguments.of(
                        "another protocol's name",
                        "GET / FOO/1.1\r\n" + host + "\r\n",
                        505,
                        "http-version-not-supported"),
                Arguments.of(
                        "a request line with a fourth part",
                        "GET / HTTP/1.1 extra\r\n" + host + "\r\n",
                        400,
                        "bad-request"),
                Arguments.of(
                        "a method with a character tokens forbid",
                        "G@T / HTTP/1.1\r\n" + host + "\r\n",
                        400,
                        "bad-request"),
                Arguments.of("a request line without a target", "GET\r\n\r\n", 400, "bad-request"),
                Arguments.of(
                        "a TLS hello on the plain port",
                        "\u0016\u0003\u0001\u0000\u0005\u0001\u0000\u0000\u0001\u0003",
                        400,
                        "bad-request"),
                Arguments.of(
                        "a header name with a space",
                        "GET / HTTP/1.1\r\n" + host + "Bad Header: y\r\n\r\n",
                        400,
                        "bad-request"),
                Arguments.of(
                        "a header line without a colon",
                        "GET / HTTP/1.1\r\n" + host + "NoColon\r\n\r\n",
                        400,
                        "bad-request"),
                Arguments.of(
                        "a folded header",
                        "GET / HTTP/1.1\r\n" + host + "X-A: 1\r\n folded\r\n\r\n",
                        400,
                        "bad-request"),
                Arguments.of(
                        "a control character in a header value",
                        "GET / HTTP/1.1\r\n" + host + "X-A: a\u0001b\r\n\r\n",
                        400,
                        "bad-request"),
                Arguments.of(
                        "two Content-Lengths",
                        "POST /v1/payments HTTP/1.1\r\n" + host + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
                        400,
                        "bad-request"),
                Arguments.of("no Host", "GET /health HTTP/1.1\r\n\r\n", 400, "bad-request"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedRequests")
    void aRequestJettyRefusesIsATypedClientErrorThatIsNotRetryable(String what, String request, int status, String type)
            throws Exception {
        // when
        RawHttp.Answer a = RawHttp.exchange(server.baseUri(), request, READ_TIMEOUT);

        // then
        assertThat(a.status()).as(a.raw()).isEqualTo(status);
        assertThat(a.contentType()).as(a.raw()).startsWith("application/problem+json");
        JsonNode problem = JSON.readTree(a.body());
        assertThat(problem.path("type").asText()).as(a.raw()).isEqualTo("/problems/" + type);
        assertThat(problem.path("status").asInt()).as(a.raw()).isEqualTo(status);
        assertThat(problem.path("retryable").asBoolean(false)).as(a.raw()).isFalse();
    }

    /**
     * An HTTP/0.9 client expects a bare body without a status line; Jetty 12.1 answers it as
     * HTTP/1.1 nonetheless, then closes the connection (there is no way to tell where an HTTP/0.9
     * answer ends but the close).
     */
    @Test
    void anHttp09RequestGetsAnHttp11AnswerAndAClosedConnection() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout((int) READ_TIMEOUT.toMillis());
            socket.getOutputStream().write("GET /health\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();

            RawHttp.Answer a = RawHttp.read(in, false);

            assertThat(a.head()).startsWith("HTTP/1.1 505 ");
            assertThat(JSON.readTree(a.body()).path("type").asText()).isEqualTo("/problems/http-version-not-supported");
            assertThat(in.read())
                    .as("the connection is closed after the answer")
                    .isEqualTo(-1);
        }
    }

    @Test
    void theVersionProblemHasItsPage() {
        Api anonymous = new Api(server.baseUri(), null);

        Api.Answer page = anonymous.send(
                anonymous.request("/problems/http-version-not-supported").GET().build());

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.raw().body()).contains("HTTP/0.9");
    }
}

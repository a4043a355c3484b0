package dev.retrysafe.server.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, end to end over real HTTP: the {@code traceparent} of the API call that caused an
 * event reaches the receiver (the same trace id; a new trace when the call had none), and an
 * endpoint's custom headers arrive on every attempt, are never answered by the API (names only),
 * and appear in no log line of the whole flow, whatever its level.
 */
class TraceContextAndCustomHeadersTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    private static final String API_KEY_VALUE = "rcv-key-" + UUID.randomUUID();

    @Test
    void aRequestsTraceAndTheEndpointsHeadersGoOnEveryAttemptAndTheHeaderValueIsNeverShownOrLogged() throws Exception {
        try (LogCapture logs = LogCapture.start()) {
            flow();
            // after the server stopped: every line it wrote is in
            assertThat(logs.text()).as("log output of the flow").isNotEmpty().doesNotContain(API_KEY_VALUE);
        }
    }

    private static void flow() throws Exception {
        try (Receiver receiver = Receiver.start(2);
                TestServer server = TestServer.h2()
                        .loopbackWebhooks(List.of(Duration.ZERO, Duration.ofMillis(20), Duration.ofMillis(20)))
                        .start()) {
            Api api = Api.of(server);

            // an endpoint with custom headers: the answer names them, never shows a value
            Api.Answer created = api.post(
                    "/v1/webhook_endpoints",
                    "{\"url\": \"" + receiver.url() + "\", \"event_types\": [\"payment.*\"], \"headers\": {"
                            + "\"X-Api-Key\": \"" + API_KEY_VALUE + "\", \"X-Tenant\": \"t-42\"}}");
            assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
            assertThat(created.raw().body()).doesNotContain(API_KEY_VALUE);
            assertThat(created.body().get("header_names").toString()).isEqualTo("[\"X-Api-Key\",\"X-Tenant\"]");
            String id = created.body().get("id").asText();
            Api.Answer read = api.get("/v1/webhook_endpoints/" + id);
            assertThat(read.raw().body()).doesNotContain(API_KEY_VALUE).doesNotContain("\"headers\"");
            assertThat(read.body().get("header_names").toString()).isEqualTo("[\"X-Api-Key\",\"X-Tenant\"]");
            assertThat(api.get("/v1/webhook_endpoints").raw().body()).doesNotContain(API_KEY_VALUE);

            // a payment made by a request that carries a trace context
            Api.Answer payment = api.send(api.request("/v1/payments")
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", UUID.randomUUID().toString())
                    .header("traceparent", TRACEPARENT)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 5, \"currency\": \"eur\"}"))
                    .build());
            assertThat(payment.status()).as(payment.raw().body()).isIn(200, 201);

            // its webhook fails twice, then arrives: every attempt carries the trace and the headers
            await().atMost(WAIT).until(() -> receiver.received().size() >= 3);
            List<Map<String, String>> attempts = receiver.received().subList(0, 3);
            assertThat(attempts)
                    .extracting(h -> h.get("webhook-id"))
                    .containsOnly(attempts.getFirst().get("webhook-id"));
            assertThat(attempts).allSatisfy(h -> {
                assertThat(h).containsEntry("traceparent", TRACEPARENT);
                assertThat(h).containsEntry("x-api-key", API_KEY_VALUE);
                assertThat(h).containsEntry("x-tenant", "t-42");
            });

            // a request without a trace context starts one: a new trace id, not sampled
            int before = receiver.received().size();
            assertThat(api.post("/v1/payments", "{\"amount\": 6, \"currency\": \"eur\"}")
                            .status())
                    .isIn(200, 201);
            await().atMost(WAIT).until(() -> receiver.received().size() > before);
            String started = receiver.received().get(before).get("traceparent");
            assertThat(started)
                    .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00")
                    .doesNotContain("0af7651916cd43dd8448eb211c80319c");

            // a patch replaces the set; the new value goes out, the old name is gone
            Api.Answer patched = api.send(
                    "PATCH",
                    "/v1/webhook_endpoints/" + id,
                    "application/json",
                    "{\"headers\": {\"Authorization\": \"Bearer rotated\"}}".getBytes(StandardCharsets.UTF_8));
            assertThat(patched.status()).as(patched.raw().body()).isEqualTo(200);
            assertThat(patched.body().get("header_names").toString()).isEqualTo("[\"Authorization\"]");
        }
    }

    @Test
    void headersThatClashWithTheSignatureOrFramingOrAreMalformedAreRefusedWith400() {
        try (TestServer server = TestServer.h2().start()) {
            Api api = Api.of(server);
            String url = "https://1.1.1.1/hooks";
            for (String headers : List.of(
                    "{\"Webhook-Signature\": \"v1,abc\"}",
                    "{\"webhook-id\": \"x\"}",
                    "{\"Content-Length\": \"1\"}",
                    "{\"Host\": \"evil.example\"}",
                    "{\"Transfer-Encoding\": \"chunked\"}",
                    "{\"Proxy-Authorization\": \"x\"}",
                    "{\"traceparent\": \"" + TRACEPARENT + "\"}",
                    "{\"X Bad\": \"x\"}",
                    "{\"X-Api-Key\": \"a\\r\\nX-Injected: 1\"}",
                    "{\"X-Api-Key\": 5}",
                    "\"X-Api-Key: 1\"")) {
                Api.Answer a = api.post(
                        "/v1/webhook_endpoints",
                        "{\"url\": \"" + url + "\", \"event_types\": [\"*\"], \"headers\": " + headers + "}");
                assertThat(a.status()).as(headers + ": " + a.raw().body()).isEqualTo(400);
                assertThat(a.contentType()).startsWith("application/problem+json");
                assertThat(a.raw().body()).contains("headers").doesNotContain("X-Injected: 1");
            }
            String id = api.post("/v1/webhook_endpoints", "{\"url\": \"" + url + "\", \"event_types\": [\"*\"]}")
                    .body()
                    .get("id")
                    .asText();
            Api.Answer patch = api.send(
                    "PATCH",
                    "/v1/webhook_endpoints/" + id,
                    "application/json",
                    "{\"headers\": {\"Webhook-Timestamp\": \"1\"}}".getBytes(StandardCharsets.UTF_8));
            assertThat(patch.status()).isEqualTo(400);
            JsonNode e = api.get("/v1/webhook_endpoints/" + id).body();
            assertThat(e.get("header_names")).isEmpty();
        }
    }

    /** A receiver on 127.0.0.1 that records every request's headers (lower-case names) and fails the first ones. */
    private static final class Receiver implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        private final ConcurrentLinkedQueue<Map<String, String>> received = new ConcurrentLinkedQueue<>();
        private final AtomicInteger failuresLeft;

        private Receiver(int failures) throws IOException {
            failuresLeft = new AtomicInteger(failures);
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(threads);
            server.createContext("/", exchange -> {
                try (exchange) {
                    exchange.getRequestBody().readAllBytes();
                    Map<String, String> headers = new TreeMap<>();
                    exchange.getRequestHeaders()
                            .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.getFirst()));
                    received.add(headers);
                    exchange.sendResponseHeaders(failuresLeft.getAndDecrement() > 0 ? 500 : 204, -1);
                }
            });
            server.start();
        }

        static Receiver start(int failures) throws IOException {
            return new Receiver(failures);
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/hooks";
        }

        List<Map<String, String>> received() {
            return List.copyOf(received);
        }

        @Override
        public void close() {
            server.stop(0);
            threads.close();
        }
    }

    /**
     * Every log line while it runs: standard error (where the server's SLF4J logger writes) and
     * every {@code java.util.logging} / {@code System.Logger} record of Retrysafe at any level.
     */
    private static final class LogCapture extends Handler implements AutoCloseable {
        private final ByteArrayOutputStream err = new ByteArrayOutputStream();
        private final PrintStream original = System.err;
        private final StringBuffer records = new StringBuffer();
        private final Logger root = Logger.getLogger("dev.retrysafe");
        private final Level rootLevel = root.getLevel();
        private final SimpleFormatter formatter = new SimpleFormatter();

        static LogCapture start() {
            LogCapture capture = new LogCapture();
            System.setErr(new PrintStream(new TeeStream(capture.err, capture.original), true, StandardCharsets.UTF_8));
            capture.root.setLevel(Level.ALL);
            capture.root.addHandler(capture);
            capture.setLevel(Level.ALL);
            return capture;
        }

        String text() {
            synchronized (err) {
                return err.toString(StandardCharsets.UTF_8) + records;
            }
        }

        @Override
        public void publish(LogRecord record) {
            records.append(formatter.format(record));
        }

        @Override
        public void flush() {}

        @Override
        public void close() {
            root.removeHandler(this);
            root.setLevel(rootLevel);
            System.setErr(original);
        }
    }

    /** Writes to both streams. */
    private static final class TeeStream extends java.io.OutputStream {
        private final ByteArrayOutputStream copy;
        private final PrintStream original;

        TeeStream(ByteArrayOutputStream copy, PrintStream original) {
            this.copy = copy;
            this.original = original;
        }

        @Override
        public void write(int b) {
            synchronized (copy) {
                copy.write(b);
            }
            original.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            synchronized (copy) {
                copy.write(b, off, len);
            }
            original.write(b, off, len);
        }
    }
}

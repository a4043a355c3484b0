package dev.retrysafe.server.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.StreamClient;
import dev.retrysafe.server.TestServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Delivery attempts and job changes on the stream, with the events that go with them: an
 * attempt after its event, a finished report's event before the job change that announces it.
 * Webhooks go to a receiver on 127.0.0.1 only.
 */
class LiveUpdatesTest {

    private static final Duration WAIT = StreamClient.DEADLINE;

    @Test
    void deliveryAttemptsFollowTheirEventWithTheOutcomeAndTheDeliverysStatus() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        receiver.setExecutor(threads);
        receiver.createContext("/hooks", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(calls.incrementAndGet() == 1 ? 500 : 204, -1);
            exchange.close();
        });
        receiver.start();
        try (TestServer server = TestServer.h2()
                        .loopbackWebhooks(List.of(Duration.ZERO, Duration.ofMillis(50)))
                        .start();
                StreamClient client = StreamClient.welcomed(server.baseUri(), server.apiKey())
                        .subscribe("payment.succeeded", "delivery.attempted")) {
            Api api = Api.of(server);
            String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks";
            Api.Answer endpoint = api.post(
                    "/v1/webhook_endpoints", "{\"url\": \"" + url + "\", \"event_types\": [\"payment.succeeded\"]}");
            assertThat(endpoint.status()).isEqualTo(201);

            Api.Answer paid = api.post("/v1/payments", "{\"amount\": 500, \"currency\": \"eur\"}");

            JsonNode event = client.next(WAIT);
            assertThat(event.path("type").asText()).isEqualTo("event");
            assertThat(event.path("event").path("data").path("id").asText())
                    .isEqualTo(paid.body().get("id").asText());
            JsonNode failed = client.next(WAIT);
            JsonNode succeeded = client.next(WAIT);
            for (JsonNode attempt : List.of(failed, succeeded)) {
                assertThat(attempt.path("type").asText()).isEqualTo("delivery.attempted");
                assertThat(attempt.path("endpoint_id").asText())
                        .isEqualTo(endpoint.body().get("id").asText());
                assertThat(attempt.path("delivery_id").asText()).startsWith("msg_");
                assertThat(attempt.path("attempt").has("response"))
                        .as("the receiver's answer stays in the API")
                        .isFalse();
            }
            assertThat(failed.path("delivery_status").asText()).isEqualTo("pending");
            assertThat(failed.path("attempt").path("status_code").asInt()).isEqualTo(500);
            assertThat(failed.path("attempt").path("number").asInt()).isEqualTo(1);
            assertThat(succeeded.path("delivery_status").asText()).isEqualTo("succeeded");
            assertThat(succeeded.path("attempt").path("outcome").asText()).isEqualTo("success");
            assertThat(succeeded.path("attempt").path("number").asInt()).isEqualTo(2);
            JsonNode delivery = api.get(
                            "/v1/deliveries/" + succeeded.path("delivery_id").asText())
                    .body();
            assertThat(delivery.path("attempts").get(1).path("id").asText())
                    .as("the same attempt as the API shows")
                    .isEqualTo(succeeded.path("attempt").path("id").asText());
        } finally {
            receiver.stop(0);
            threads.shutdownNow();
        }
    }

    @Test
    void aReportsJobChangesComeWithItsEventFirst() {
        try (TestServer server = TestServer.h2().start();
                StreamClient client =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("job.updated", "report.*")) {
            Api.Answer created = Api.of(server).post("/v1/reports", "{\"kind\": \"payments_csv\"}");
            assertThat(created.status()).isEqualTo(202);
            String job = created.body().get("id").asText();

            // the feed catches up on committed events before it sends a change, so a report that
            // finished before the "running" change was sent may bring its event first; what must
            // hold is that the event comes before the change that announces the end
            List<JsonNode> seen = new ArrayList<>();
            JsonNode done = client.await(
                    m -> {
                        seen.add(m);
                        return m.path("type").asText().equals("job.updated")
                                && !m.path("job").path("status").asText().equals("running");
                    },
                    WAIT,
                    "the report's end");
            assertThat(seen)
                    .as("messages up to the end")
                    .filteredOn(m -> m.path("type").asText().equals("job.updated")
                            && m.path("job").path("status").asText().equals("running"))
                    .singleElement()
                    .satisfies(
                            m -> assertThat(m.path("job").path("id").asText()).isEqualTo(job));
            assertThat(seen)
                    .as("the event comes before the change")
                    .filteredOn(m -> m.path("type").asText().equals("event"))
                    .singleElement()
                    .satisfies(m ->
                            assertThat(m.path("event").path("type").asText()).isEqualTo("report.succeeded"));
            assertThat(done.path("job").path("id").asText()).isEqualTo(job);
            assertThat(done.path("job").path("status").asText()).isEqualTo("succeeded");
            assertThat(done.path("job").path("result_url").asText()).isEqualTo("/v1/jobs/" + job + "/result");
        }
    }
}

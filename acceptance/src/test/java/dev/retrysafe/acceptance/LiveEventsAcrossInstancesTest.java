package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.StreamClient;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The live event stream with two server instances on one PostgreSQL database, as behind a load
 * balancer: a stream on one instance gets what the other committed, through LISTEN/NOTIFY (the
 * poll that could also find it is set to a minute, so only a notification can be in time), and
 * the other's job changes (which only notifications carry), and resumes on either instance.
 */
class LiveEventsAcrossInstancesTest {

    private static final String PAYMENT = "{\"amount\": 700, \"currency\": \"eur\"}";
    private static final Duration WITHIN = Duration.ofSeconds(1);
    /** Only a notification can deliver an event in time. */
    private static final UnaryOperator<ServerConfig> SLOW_POLL =
            c -> c.withStreams(c.streams().withPollInterval(Duration.ofMinutes(1)));

    private static String pay(Api api) {
        Api.Answer answer = api.post("/v1/payments", PAYMENT);
        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(201);
        return answer.body().get("id").asText();
    }

    private static boolean isEventOf(JsonNode message, String payment) {
        return message.path("type").asText().equals("event")
                && message.path("event").path("data").path("id").asText().equals(payment);
    }

    @Test
    void aPaymentTakenByOneInstanceReachesASubscriberOfTheOtherWithinASecondOfItsCommit() {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer first = TestServer.postgres(db).configure(SLOW_POLL).start();
                TestServer second = TestServer.postgres(db)
                        .configure(c -> SLOW_POLL.apply(
                                c.withBootstrapApiKeys(first.config().bootstrapApiKeys())))
                        .start();
                StreamClient subscriber =
                        StreamClient.welcomed(second.baseUri(), first.apiKey()).subscribe("payment.succeeded")) {
            Api onFirst = Api.of(first);
            String warmUp = pay(onFirst);
            subscriber.await(m -> isEventOf(m, warmUp), StreamClient.DEADLINE, "the first payment");

            for (int i = 0; i < 5; i++) {
                Api.Answer paid = onFirst.post("/v1/payments", PAYMENT);
                assertThat(paid.status()).isEqualTo(201);
                String payment = paid.body().get("id").asText();
                JsonNode event =
                        subscriber.await(m -> isEventOf(m, payment), StreamClient.DEADLINE, "payment " + payment);

                // created_at is written before the commit, by the same clock: the bound is conservative
                Instant recorded = Instant.parse(paid.body().get("created_at").asText());
                assertThat(Duration.between(recorded, subscriber.arrivedAt(event)))
                        .as("from the payment's record to the other instance's subscriber")
                        .isLessThanOrEqualTo(WITHIN);
            }
        }
    }

    @Test
    void aJobChangedOnOneInstanceReachesASubscriberOfTheOther() {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer first = TestServer.postgres(db)
                        .configure(c ->
                                SLOW_POLL.apply(c.withJobs(c.jobs().withReportMinDuration(Duration.ofMinutes(10)))))
                        .start()) {
            Api onFirst = Api.of(first);
            Api.Answer created = onFirst.post("/v1/reports", "{\"kind\": \"payments_csv\"}");
            assertThat(created.status()).as(created.raw().body()).isEqualTo(202);
            String job = created.body().get("id").asText();
            // the first instance runs the report before the second exists: every change of it is the first's
            await().atMost(StreamClient.DEADLINE)
                    .until(() -> onFirst.get("/v1/jobs/" + job)
                            .body()
                            .path("status")
                            .asText()
                            .equals("running"));

            try (TestServer second = TestServer.postgres(db)
                            .configure(c -> SLOW_POLL.apply(
                                    c.withBootstrapApiKeys(first.config().bootstrapApiKeys())))
                            .start();
                    StreamClient subscriber = StreamClient.welcomed(second.baseUri(), first.apiKey())
                            .subscribe("job.updated")) {
                assertThat(onFirst.send("DELETE", "/v1/jobs/" + job, null, new byte[0])
                                .status())
                        .isEqualTo(202);

                List<JsonNode> changes = new ArrayList<>();
                JsonNode end = subscriber.await(
                        m -> {
                            changes.add(m);
                            return m.path("job").path("status").asText().equals("canceled");
                        },
                        StreamClient.DEADLINE,
                        "the job's end, from the first instance");

                assertThat(end.path("type").asText()).isEqualTo("job.updated");
                assertThat(end.path("job").path("id").asText()).isEqualTo(job);
                assertThat(changes)
                        .as("the cancel request came before the end")
                        .anyMatch(m -> m.path("job").path("status").asText().equals("running")
                                && m.path("job").path("cancel_requested").asBoolean());
            }
        }
    }

    @Test
    void aStreamResumedOnTheOtherInstanceGetsExactlyTheMissedEventsInOrder() {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer first = TestServer.postgres(db).configure(SLOW_POLL).start();
                TestServer second = TestServer.postgres(db)
                        .configure(c -> SLOW_POLL.apply(
                                c.withBootstrapApiKeys(first.config().bootstrapApiKeys())))
                        .start()) {
            Api onFirst = Api.of(first);
            Api onSecond = new Api(second.baseUri(), first.apiKey());
            String last;
            try (StreamClient before =
                    StreamClient.welcomed(second.baseUri(), first.apiKey()).subscribe("payment.succeeded")) {
                pay(onSecond);
                last = before.events(1).getFirst().get("id").asText();
            }
            List<String> missed = new ArrayList<>();
            missed.add(pay(onFirst));
            missed.add(pay(onSecond));
            missed.add(pay(onFirst));

            try (StreamClient after = StreamClient.welcomed(first.baseUri(), first.apiKey())) {
                after.send("{\"type\":\"resume\",\"after\":\"" + last + "\",\"event_types\":[\"payment.succeeded\"]}");

                assertThat(after.events(3))
                        .extracting(e -> e.path("data").path("id").asText())
                        .containsExactlyElementsOf(missed);
                assertThat(after.next(StreamClient.DEADLINE).path("replayed").asInt())
                        .isEqualTo(3);
                String live = pay(onSecond);
                JsonNode next = after.next(StreamClient.DEADLINE);
                assertThat(isEventOf(next, live))
                        .as("then live, with nothing repeated: %s", next)
                        .isTrue();
            }
        }
    }
}

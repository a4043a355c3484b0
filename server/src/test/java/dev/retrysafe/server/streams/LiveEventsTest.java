package dev.retrysafe.server.streams;

import static dev.retrysafe.server.streams.StreamMetricsReader.metric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.liveevents.LiveEventsConfig;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.StreamClient;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.testkit.RawHttp;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The live event stream over real WebSockets against a server on the embedded database: what a
 * subscriber gets, resume, authentication, and every limit. Waits have deadlines; nothing sleeps.
 */
class LiveEventsTest {

    private static final String PAYMENT = "{\"amount\": 500, \"currency\": \"eur\"}";
    private static final Duration WAIT = StreamClient.DEADLINE;

    private static TestServer start(UnaryOperator<LiveEventsConfig> streams) {
        return TestServer.h2()
                .configure(c -> c.withStreams(streams.apply(c.streams())))
                .start();
    }

    private static TestServer start() {
        return start(UnaryOperator.identity());
    }

    /** Makes a payment; answers its id. */
    private static String pay(Api api) {
        Api.Answer answer = api.post("/v1/payments", PAYMENT);
        assertThat(answer.status()).as("payment: %s", answer.raw().body()).isEqualTo(201);
        return answer.body().get("id").asText();
    }

    private static String paymentOf(JsonNode event) {
        return event.path("data").path("id").asText();
    }

    // --- what a subscriber gets --------------------------------------------------------------

    @Test
    void aSubscriberGetsItsAccountsEventsInOrderAndNeverAnotherAccounts() {
        try (TestServer server = start();
                StreamClient mine =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("*");
                StreamClient theirs = StreamClient.welcomed(server.baseUri(), server.otherApiKey())
                        .subscribe("*")) {
            Api api = Api.of(server);
            Api other = new Api(server.baseUri(), server.otherApiKey());
            List<String> myPayments = new ArrayList<>();
            List<String> theirPayments = new ArrayList<>();

            for (int i = 0; i < 5; i++) {
                myPayments.add(pay(api));
                theirPayments.add(pay(other));
            }

            assertThat(mine.events(5)).extracting(LiveEventsTest::paymentOf).containsExactlyElementsOf(myPayments);
            assertThat(theirs.events(5)).extracting(LiveEventsTest::paymentOf).containsExactlyElementsOf(theirPayments);
            mine.assertAlive();
            theirs.assertAlive();
            assertThat(mine.received())
                    .filteredOn(m -> m.path("type").asText().equals("event"))
                    .hasSize(5);
            assertThat(theirs.received())
                    .filteredOn(m -> m.path("type").asText().equals("event"))
                    .hasSize(5);
        }
    }

    @Test
    void theFilterPicksEventTypesByNameOrPrefix() {
        try (TestServer server = TestServer.h2().declineRate(1.0).start();
                StreamClient succeeded =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("payment.succeeded");
                StreamClient payments =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("payment.*")) {
            String declined = pay(Api.of(server));

            JsonNode event = payments.events(1).getFirst();
            assertThat(event.path("type").asText()).isEqualTo("payment.failed");
            assertThat(paymentOf(event)).isEqualTo(declined);
            succeeded.assertAlive();
            assertThat(succeeded.received())
                    .noneMatch(m -> m.path("type").asText().equals("event"));
        }
    }

    @Test
    void aSecondSubscribeChangesTheFilter() {
        try (TestServer server = start();
                StreamClient client =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("refund.created");
                StreamClient watcher =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("payment.*")) {
            Api api = Api.of(server);
            String first = pay(api);
            // the feed hands an account's events to all its streams at once: once the watcher has the
            // first payment's event, the client's stream has passed it under its old filter (without
            // this wait the feed could still be on its way to it when the filter changes)
            assertThat(paymentOf(watcher.events(1).getFirst())).isEqualTo(first);
            client.assertAlive();

            client.subscribe("payment.succeeded");
            String second = pay(api);

            assertThat(paymentOf(client.events(1).getFirst())).isEqualTo(second);
        }
    }

    // --- resume ------------------------------------------------------------------------------

    @Test
    void resumeReplaysExactlyTheMissedEventsInOrderThenGoesLive() {
        try (TestServer server = start()) {
            Api api = Api.of(server);
            String last;
            try (StreamClient first =
                    StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("payment.succeeded")) {
                pay(api);
                last = first.events(1).getFirst().get("id").asText();
            }
            List<String> missed = List.of(pay(api), pay(api), pay(api));

            try (StreamClient again = StreamClient.welcomed(server.baseUri(), server.apiKey())) {
                again.send("{\"type\":\"resume\",\"after\":\"" + last + "\",\"event_types\":[\"payment.succeeded\"]}");

                assertThat(again.events(3))
                        .extracting(LiveEventsTest::paymentOf)
                        .containsExactlyElementsOf(missed);
                JsonNode resumed = again.next(WAIT);
                assertThat(resumed.path("type").asText()).isEqualTo("resumed");
                assertThat(resumed.path("after").asText()).isEqualTo(last);
                assertThat(resumed.path("replayed").asInt()).isEqualTo(3);
                String live = pay(api);
                JsonNode next = again.next(WAIT);
                assertThat(next.path("type").asText())
                        .as("no duplicate before the live event")
                        .isEqualTo("event");
                assertThat(paymentOf(next.get("event"))).isEqualTo(live);
            }
        }
    }

    @Test
    void resumeWhilePaymentsCommitLosesNothingAndRepeatsNothing() throws Exception {
        try (TestServer server = start();
                StreamClient watcher =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("*")) {
            Api api = Api.of(server);
            for (int i = 0; i < 3; i++) {
                pay(api);
            }
            String resumeAfter = watcher.events(3).get(1).get("id").asText();
            int more = 30;
            CompletableFuture<Void> paying = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < more; i++) {
                    pay(api);
                }
            });

            try (StreamClient resuming = StreamClient.welcomed(server.baseUri(), server.apiKey())) {
                resuming.send("{\"type\":\"resume\",\"after\":\"" + resumeAfter + "\"}");
                paying.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                List<String> expected = new ArrayList<>();
                expected.add(watcher.received().stream()
                        .filter(m -> m.path("type").asText().equals("event"))
                        .toList()
                        .get(2)
                        .get("event")
                        .get("id")
                        .asText());
                watcher.events(more).forEach(e -> expected.add(e.get("id").asText()));

                List<String> got = resuming.events(1 + more).stream()
                        .map(e -> e.get("id").asText())
                        .toList();

                assertThat(got)
                        .as("the watcher's order, from the event after the cursor")
                        .isEqualTo(expected);
                resuming.assertAlive();
                assertThat(resuming.pending())
                        .as("nothing more")
                        .noneMatch(m -> m.path("type").asText().equals("event"));
            }
        }
    }

    @Test
    void resumeAfterAnUnknownOrAnotherAccountsEventIsRefusedAndMayBeRetried() {
        try (TestServer server = start();
                StreamClient theirs = StreamClient.welcomed(server.baseUri(), server.otherApiKey())
                        .subscribe("*");
                StreamClient mine = StreamClient.welcomed(server.baseUri(), server.apiKey())) {
            pay(new Api(server.baseUri(), server.otherApiKey()));
            String theirEvent = theirs.events(1).getFirst().get("id").asText();

            mine.send("{\"type\":\"resume\",\"after\":\"" + theirEvent + "\"}");
            JsonNode error = mine.await("error");

            assertThat(error.path("code").asText()).isEqualTo("unknown_event");
            assertThat(error.toString()).doesNotContain("payment");
            mine.send("{\"type\":\"resume\",\"after\":\"evt_01m8xe6fcftsr6qwz9twh40bzz\"}");
            assertThat(mine.await("error").path("code").asText()).isEqualTo("unknown_event");
            mine.subscribe("*");
            mine.send("{\"type\":\"resume\",\"after\":\"" + theirEvent + "\"}");
            assertThat(mine.await("error").path("code").asText()).isEqualTo("already_subscribed");
        }
    }

    @Test
    void resumeFurtherBehindThanTheReplayLimitSendsTheClientToTheEventList() {
        try (TestServer server = start(s -> s.withMaxReplay(2))) {
            Api api = Api.of(server);
            String last;
            try (StreamClient first =
                    StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("*")) {
                pay(api);
                last = first.events(1).getFirst().get("id").asText();
            }
            pay(api);
            pay(api);
            pay(api);

            try (StreamClient again = StreamClient.welcomed(server.baseUri(), server.apiKey())) {
                again.send("{\"type\":\"resume\",\"after\":\"" + last + "\"}");
                JsonNode error = again.await("error");

                assertThat(error.path("code").asText()).isEqualTo("resume_too_far");
                assertThat(error.path("message").asText()).contains("3 events", "GET /v1/events");
                again.assertAlive();
            }
        }
    }

    // --- authentication ----------------------------------------------------------------------

    @Test
    void aBrowserSendsItsKeyInTheFirstMessage() {
        try (TestServer server = start();
                StreamClient browser = StreamClient.connect(server.baseUri(), null)) {
            browser.send("{\"type\":\"auth\",\"api_key\":\"" + server.apiKey() + "\"}");
            browser.await("welcome");
            browser.subscribe("*");

            String paid = pay(Api.of(server));

            assertThat(paymentOf(browser.events(1).getFirst())).isEqualTo(paid);
            browser.send("{\"type\":\"auth\",\"api_key\":\"" + server.apiKey() + "\"}");
            assertThat(browser.await("error").path("code").asText()).isEqualTo("already_authenticated");
        }
    }

    @Test
    void aConnectionWithoutAValidKeyIsRefused() {
        try (TestServer server = start(s -> s.withTimings(s.pingInterval(), s.pongTimeout(), Duration.ofMillis(300)))) {
            assertThat(StreamClient.refusedStatus(server.baseUri(), "rs_not-a-key"))
                    .as("a bad key in the header")
                    .isEqualTo(401);
            try (StreamClient wrongKey = StreamClient.connect(server.baseUri(), null);
                    StreamClient noAuthFirst = StreamClient.connect(server.baseUri(), null);
                    StreamClient silent = StreamClient.connect(server.baseUri(), null)) {
                wrongKey.send("{\"type\":\"auth\",\"api_key\":\"rs_not-a-key\"}");
                noAuthFirst.send("{\"type\":\"subscribe\",\"event_types\":[\"*\"]}");

                assertThat(wrongKey.closeCode(WAIT)).isEqualTo(1008);
                assertThat(noAuthFirst.closeCode(WAIT)).isEqualTo(1008);
                assertThat(silent.closeCode(WAIT))
                        .as("no key within the auth timeout")
                        .isEqualTo(1008);
                assertThat(wrongKey.received())
                        .extracting(m -> m.path("code").asText())
                        .containsExactly("unauthorized");
                assertThat(noAuthFirst.received())
                        .extracting(m -> m.path("code").asText())
                        .containsExactly("auth_required");
                assertThat(silent.received())
                        .extracting(m -> m.path("code").asText())
                        .containsExactly("auth_timeout");
                pay(Api.of(server));
                assertThat(metric(server, "retrysafe_stream_auth_failures_total"))
                        .isEqualTo(3);
            }
        }
    }

    // --- limits ------------------------------------------------------------------------------

    @Test
    void aFloodIsCutToTheLimitToldToWaitThenClosedWhileTheAccountsOtherStreamGoesOn() {
        int limit = 20;
        try (TestServer server = start(s -> s.withMessageLimit(limit, Duration.ofHours(1), 100));
                StreamClient other =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("*");
                StreamClient flooding = StreamClient.welcomed(server.baseUri(), server.apiKey())) {
            int sent = 0;
            for (int i = 0; i < 1000 && flooding.send("{\"type\":\"ping\",\"id\":" + i + "}"); i++) {
                sent++;
            }

            assertThat(flooding.closeCode(WAIT)).isEqualTo(1008);
            List<JsonNode> got = flooding.received();
            assertThat(got)
                    .filteredOn(m -> m.path("type").asText().equals("pong"))
                    .extracting(m -> m.path("id").asInt())
                    .as("exactly the first %d were processed", limit)
                    .containsExactlyElementsOf(
                            java.util.stream.IntStream.range(0, limit).boxed().toList());
            List<JsonNode> errors = got.stream()
                    .filter(m -> m.path("type").asText().equals("error"))
                    .toList();
            assertThat(errors).as("told once").hasSize(1);
            assertThat(errors.getFirst().path("code").asText()).isEqualTo("rate_limited");
            assertThat(errors.getFirst().path("retry_after").asLong()).isBetween(1L, 3600L);
            assertThat(sent).as("closed during the burst").isGreaterThanOrEqualTo(limit + 100);
            other.assertAlive();
            String paid = pay(Api.of(server));
            assertThat(paymentOf(other.events(1).getFirst())).isEqualTo(paid);
            assertThat(metric(server, "retrysafe_stream_floods_total")).isEqualTo(1);
            assertThat(metric(server, "retrysafe_stream_closes_total{code=\"1008\"}"))
                    .isEqualTo(1);
        }
    }

    @Test
    void aMessageOverTheSizeLimitClosesWith1009AndABinaryOneWith1003() {
        try (TestServer server = start(s -> s.withMaxMessageBytes(1024));
                StreamClient big = StreamClient.welcomed(server.baseUri(), server.apiKey());
                StreamClient binary = StreamClient.welcomed(server.baseUri(), server.apiKey());
                StreamClient fits = StreamClient.welcomed(server.baseUri(), server.apiKey())) {
            big.send("{\"type\":\"ping\",\"id\":\"" + "x".repeat(2000) + "\"}");
            binary.sendBinary(new byte[] {1, 2, 3});
            fits.send("{\"type\":\"ping\",\"pad\":\"" + "x".repeat(900) + "\"}");

            assertThat(big.closeCode(WAIT)).isEqualTo(1009);
            assertThat(binary.closeCode(WAIT)).isEqualTo(1003);
            assertThat(binary.received())
                    .extracting(m -> m.path("code").asText())
                    .contains("binary_not_supported");
            fits.await("pong");
            fits.assertAlive();
        }
    }

    @Test
    void aMessageInFragmentsIsClosedWith1009AsSoonAsTheyAddUpToMoreThanTheLimit() throws IOException {
        try (TestServer server = start(s -> s.withMaxMessageBytes(1024));
                RawWebSocket whole = RawWebSocket.open(server.baseUri(), server.apiKey(), 64 * 1024);
                RawWebSocket tooBig = RawWebSocket.open(server.baseUri(), server.apiKey(), 64 * 1024)) {
            assertThat(whole.readTexts(1, WAIT).getFirst()).contains("\"welcome\"");
            assertThat(tooBig.readTexts(1, WAIT).getFirst()).contains("\"welcome\"");

            // fragments are taken: a message in 5-byte pieces is one message
            whole.sendFragments("{\"type\":\"ping\",\"id\":\"in-pieces\"}", 5, true);
            // 4 fragments of 300 bytes, each well under the limit, 1200 together; the message never
            // ends (its last fragment is held back), so only the running total can close it
            tooBig.sendFragments("{\"type\":\"ping\",\"id\":\"" + "x".repeat(1300) + "\"}", 300, false);

            assertThat(tooBig.readUntilClosed(WAIT)).isEqualTo(1009);
            assertThat(tooBig.texts()).as("nothing of it was processed").hasSize(1);
            assertThat(whole.readTexts(2, WAIT).get(1)).contains("\"pong\"", "in-pieces");
        }
    }

    @Test
    void anAccountHasAtMostItsNumberOfStreamsAndGetsItsPlaceBackWhenOneCloses() {
        try (TestServer server = start(s -> s.withMaxConnectionsPerAccount(2));
                StreamClient second = StreamClient.welcomed(server.baseUri(), server.apiKey());
                StreamClient otherAccount = StreamClient.welcomed(server.baseUri(), server.otherApiKey())) {
            StreamClient first = StreamClient.welcomed(server.baseUri(), server.apiKey());
            try (StreamClient third = StreamClient.connect(server.baseUri(), server.apiKey())) {
                assertThat(third.await("error").path("code").asText()).isEqualTo("too_many_connections");
                assertThat(third.closeCode(WAIT)).isEqualTo(1013);
            } finally {
                first.close();
            }

            await().atMost(WAIT).until(() -> metric(server, "retrysafe_stream_connections") == 2);
            try (StreamClient fourth = StreamClient.welcomed(server.baseUri(), server.apiKey())) {
                fourth.assertAlive();
            }
            second.assertAlive();
            otherAccount.assertAlive();
        }
    }

    @Test
    void aConnectionThatAnswersNoPingIsClosedAndOneThatDoesIsKept() throws Exception {
        try (TestServer server =
                        start(s -> s.withTimings(Duration.ofMillis(100), Duration.ofMillis(400), s.authTimeout()));
                StreamClient alive =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("*");
                RawWebSocket dead = RawWebSocket.open(server.baseUri(), server.apiKey(), 64 * 1024)) {

            int code = dead.readUntilClosed(WAIT);

            assertThat(code).isEqualTo(1001);
            assertThat(dead.pings()).as("pinged before being given up").isGreaterThanOrEqualTo(1);
            assertThat(metric(server, "retrysafe_stream_dead_total")).isEqualTo(1);
            alive.assertAlive();
            String paid = pay(Api.of(server));
            assertThat(paymentOf(alive.events(1).getFirst())).isEqualTo(paid);
        }
    }

    @Test
    void stoppingTheServerClosesItsStreamsWithGoingAway() {
        TestServer server = start();
        boolean stopped = false;
        try (StreamClient client =
                StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("*")) {
            long stopping = System.nanoTime();
            stopped = true;
            server.close();

            assertThat(client.closeCode(WAIT)).isEqualTo(1001);
            assertThat(Duration.ofNanos(System.nanoTime() - stopping))
                    .as("not held up by the open stream")
                    .isLessThan(server.config().shutdownTimeout());
        } finally {
            if (!stopped) {
                server.close();
            }
        }
    }

    // --- the rest of the protocol ------------------------------------------------------------

    @Test
    void invalidMessagesAreAnsweredWithAnErrorAndTheConnectionStays() {
        try (TestServer server = start();
                StreamClient client = StreamClient.welcomed(server.baseUri(), server.apiKey())) {
            client.send("{\"type\":\"subscribe\",\"event_types\":[\"Not A Type\"]}");
            assertThat(client.await("error").path("code").asText()).isEqualTo("invalid_message");
            client.send("{\"type\":\"publish\"}");
            assertThat(client.await("error").path("code").asText()).isEqualTo("unknown_type");
            client.send("not json");
            assertThat(client.await("error").path("code").asText()).isEqualTo("invalid_message");

            client.assertAlive();
        }
    }

    @Test
    void aPlainRequestToTheStreamIsAProblem() throws Exception {
        try (TestServer server = start()) {
            Api api = Api.of(server);

            Api.Answer get = api.get("/v1/events/stream");
            Api.Answer post = api.post("/v1/events/stream", "{}");
            Api.Answer anonymous = new Api(server.baseUri(), null).get("/v1/events/stream");

            assertThat(get.status()).isEqualTo(426);
            assertThat(get.contentType()).startsWith("application/problem+json");
            assertThat(get.body().path("type").asText()).isEqualTo("/problems/upgrade-required");
            assertThat(get.header("Upgrade")).isEqualTo("websocket");
            assertThat(post.status()).isEqualTo(405);
            assertThat(post.header("Allow")).isEqualTo("GET, HEAD");
            assertThat(anonymous.status())
                    .as("the key may come later, but this is no upgrade")
                    .isEqualTo(426);
            assertThat(new Api(server.baseUri(), null)
                            .get("/problems/upgrade-required")
                            .status())
                    .isEqualTo(200);
            RawHttp.Answer head = RawHttp.exchange(
                    server.baseUri(),
                    "HEAD /v1/events/stream HTTP/1.1\r\nHost: x\r\n" + "Authorization: Bearer " + server.apiKey()
                            + "\r\nConnection: close\r\n\r\n",
                    WAIT);
            assertThat(head.status()).as("HEAD, as a GET that is no upgrade").isEqualTo(426);
            assertThat(head.header("Upgrade")).isEqualTo("websocket");
            assertThat(head.body()).as("a HEAD answer has no body").isEmpty();
            assertThat(RawHttp.exchange(
                                    server.baseUri(),
                                    "GET /v1/events/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                                            + "Connection: Upgrade\r\nAuthorization: Bearer " + server.apiKey()
                                            + "\r\n\r\n",
                                    WAIT)
                            .raw())
                    .as("an upgrade without its handshake headers")
                    .startsWith("HTTP/1.1 400")
                    .contains("/problems/bad-request");
        }
    }
}

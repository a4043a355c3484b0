package dev.retrysafe.server.streams;

import static dev.retrysafe.server.streams.StreamMetricsReader.metric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.liveevents.LiveEventsConfig;
import dev.retrysafe.server.StreamClient;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.events.EventLog;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A consumer that stops reading while 10,000 events are produced: what waits for it stays within
 * its buffer's bound (the server's per-connection buffer gauges), it is closed, and another
 * stream of the account gets every event, in order; and one that reads again after its buffer
 * overflowed finds the {@code buffer_overflow} note right before the close. The events are
 * written straight into the database (as many as a busy account makes), on PostgreSQL, and reach
 * the streams through the feed's poll.
 */
class SlowConsumerTest {

    private static final int EVENTS = 10_000;
    private static final int PER_TRANSACTION = 100;
    private static final int BUFFER = 2_000;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * About 1 KiB per event, so that 10,000 of them (10 MiB) are more than the kernel's socket
     * buffers can hide (4 MiB here): the send buffer of the stalled connection must fill.
     */
    private static final String PADDING = "x".repeat(1000);
    /** 32 KiB per event: the sockets' buffers fill after a hundred or so. */
    private static final String LARGE_PADDING = "x".repeat(32 * 1024);

    @Test
    void aConsumerThatNeverReadsIsClosedAtItsBufferBoundWhileAnotherGetsEveryEvent() throws Exception {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer server = TestServer.postgres(db)
                        .configure(c -> c.withStreams(fast(c.streams())))
                        .start();
                StreamClient reader =
                        StreamClient.welcomed(server.baseUri(), server.apiKey()).subscribe("*");
                RawWebSocket stalled = RawWebSocket.open(server.baseUri(), server.apiKey(), 4096)) {
            stalled.sendText("{\"type\":\"subscribe\",\"event_types\":[\"*\"]}");
            assertThat(stalled.readTexts(2, WAIT).get(1)).contains("\"subscribed\"");
            // from here on the stalled client reads nothing

            List<String> expected = produce(db, accountOf(db, server.apiKey()));

            List<String> got = reader.events(EVENTS).stream()
                    .map(e -> e.get("id").asText())
                    .toList();
            assertThat(got).as("every event, once, in stream order").isEqualTo(expected);
            await().atMost(WAIT).until(() -> metric(server, "retrysafe_stream_connections") == 1);
            assertThat(metric(server, "retrysafe_stream_buffer_overflows_total"))
                    .isEqualTo(1);
            assertThat(metric(server, "retrysafe_stream_closes_total{code=\"1013\"}"))
                    .isEqualTo(1);
            assertThat(metric(server, "retrysafe_stream_buffer_messages_peak"))
                    .as("what ever waited for one connection")
                    .isBetween(1L, (long) BUFFER);
            assertThat(metric(server, "retrysafe_stream_buffer_messages_limit")).isEqualTo(BUFFER);
            reader.assertAlive();
            JsonNode lastSeen = reader.received().getLast();
            assertThat(lastSeen.path("type").asText()).isEqualTo("pong");
        }
    }

    @Test
    void aConsumerThatStopsReadingIsToldOfTheOverflowBeforeTheClose() throws Exception {
        int buffer = 20;
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer server = TestServer.postgres(db)
                        .configure(c -> c.withStreams(fast(c.streams()).withBuffer(buffer, 1024 * 1024)))
                        .start();
                RawWebSocket stalled = RawWebSocket.open(server.baseUri(), server.apiKey(), 4096)) {
            stalled.sendText("{\"type\":\"subscribe\",\"event_types\":[\"*\"]}");
            assertThat(stalled.readTexts(2, WAIT).get(1)).contains("\"subscribed\"");
            String account = accountOf(db, server.apiKey());

            // it reads nothing while events come, until its buffer overflowed (the sockets'
            // buffers take an unknown share first, a few MiB, so large events come in batches until then)
            long deadline = System.nanoTime() + WAIT.toNanos();
            int written = 0;
            while (metric(server, "retrysafe_stream_buffer_overflows_total") == 0) {
                assertThat(System.nanoTime())
                        .as("overflowed after %d events", written)
                        .isLessThan(deadline);
                write(db, account, 10, LARGE_PADDING);
                written += 10;
            }

            // then it reads again: what the sockets held, the note, then the close
            int code = stalled.readUntilClosed(WAIT);

            assertThat(code).isEqualTo(1013);
            List<String> texts = stalled.texts();
            assertThat(texts.getLast())
                    .as("the last message before the close")
                    .contains("\"type\":\"error\"", "\"code\":\"buffer_overflow\"");
            assertThat(texts.subList(2, texts.size() - 1))
                    .as("events before it")
                    .isNotEmpty()
                    .allMatch(t -> t.startsWith("{\"type\":\"event\""));
            assertThat(texts.size() - 3).as("fewer than were written").isLessThan(written);
        }
    }

    /** The buffer bound under test; no pings (the stalled client must be closed for its buffer alone); a quick poll. */
    private static LiveEventsConfig fast(LiveEventsConfig s) {
        return s.withBuffer(BUFFER, 16 * 1024 * 1024)
                .withTimings(Duration.ofMinutes(10), Duration.ofMinutes(10), s.authTimeout())
                .withPollInterval(Duration.ofMillis(50));
    }

    /** Writes the events, a transaction at a time; answers their ids in stream order. */
    private static List<String> produce(PostgresTestDatabase db, String account) throws SQLException {
        for (int i = 0; i < EVENTS; i += PER_TRANSACTION) {
            write(db, account, PER_TRANSACTION, PADDING);
        }
        List<String> ids = new ArrayList<>();
        await().atMost(WAIT).until(() -> inStreamOrder(db, account, ids) == EVENTS);
        return ids;
    }

    /** Writes {@code n} events of {@code account}, each carrying {@code padding}, in one transaction. */
    private static void write(PostgresTestDatabase db, String account, int n, String padding) throws SQLException {
        EventLog log = new EventLog(new Ids(Clock.systemUTC()));
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                log.append(
                        c, account, "payment.succeeded", Clock.systemUTC().instant(), Map.of("n", i, "pad", padding));
            }
            c.commit();
        }
    }

    /** Fills {@code ids} with the account's numbered events in stream order; answers how many. */
    private static int inStreamOrder(PostgresTestDatabase db, String account, List<String> ids) throws SQLException {
        ids.clear();
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement(
                        "SELECT id FROM events WHERE account_id = ? AND seq IS NOT NULL ORDER BY seq")) {
            s.setString(1, account);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getString(1));
                }
            }
        }
        return ids.size();
    }

    private static String accountOf(PostgresTestDatabase db, String apiKey) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement("SELECT account_id FROM api_keys WHERE key_hash = ?")) {
            s.setString(1, ApiKeys.hash(apiKey));
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getString(1);
            }
        }
    }
}

package dev.retrysafe.server.streams;

import static dev.retrysafe.server.streams.StreamMetricsReader.metric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.server.StreamClient;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@code streams.max_connections_per_account} with two server instances on one PostgreSQL
 * database, as behind a load balancer: the streams of both count together, the one over the limit
 * is refused on either instance exactly as one instance refuses it, a closed stream's place is
 * free at once, a live stream keeps its place past its first lease, the places of a killed
 * instance (leases nobody renews, written here as that instance would have left them) are free
 * once its leases ran out, and a stream whose place was given away meanwhile is closed.
 */
class SharedConnectionLimitTest {

    private static final int LIMIT = 3;
    private static final Duration WAIT = StreamClient.DEADLINE;
    private static final String KILLED = "killed-instance";

    private static UnaryOperator<ServerConfig> limited(Duration lease) {
        return c ->
                c.withStreams(c.streams().withMaxConnectionsPerAccount(LIMIT).withConnectionLease(lease));
    }

    @Test
    void theStreamsOfBothInstancesCountTogetherAndTheOneOverTheLimitIsRefusedOnEither() {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer first = TestServer.postgres(db)
                        .configure(limited(Duration.ofSeconds(30)))
                        .start();
                TestServer second = TestServer.postgres(db)
                        .configure(c -> limited(Duration.ofSeconds(30))
                                .apply(c.withBootstrapApiKeys(first.config().bootstrapApiKeys())))
                        .start()) {
            String key = first.apiKey();
            List<StreamClient> open = new ArrayList<>();
            try {
                open.add(StreamClient.welcomed(first.baseUri(), key));
                open.add(StreamClient.welcomed(second.baseUri(), key));
                open.add(StreamClient.welcomed(first.baseUri(), key));

                JsonNode onFirst = refusal(first, key);
                JsonNode onSecond = refusal(second, key);

                assertThat(onFirst.path("code").asText()).isEqualTo("too_many_connections");
                assertThat(onSecond)
                        .as("refused on the other instance exactly alike")
                        .isEqualTo(onFirst);
                try (StreamClient otherAccount = StreamClient.welcomed(second.baseUri(), first.otherApiKey())) {
                    otherAccount.assertAlive();
                }

                open.removeFirst().close();
                await().atMost(WAIT).until(() -> metric(first, "retrysafe_stream_connections") == 1);
                open.add(StreamClient.welcomed(second.baseUri(), key));
                open.getLast().assertAlive();
                assertThat(refusal(first, key).path("code").asText())
                        .as("full again")
                        .isEqualTo("too_many_connections");
                open.forEach(StreamClient::assertAlive);
            } finally {
                open.forEach(StreamClient::close);
            }
        }
    }

    @Test
    void aLiveStreamKeepsItsPlaceThroughItsInstancesHeartbeats() throws SQLException {
        Duration lease = Duration.ofSeconds(2);
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer server =
                        TestServer.postgres(db).configure(limited(lease)).start()) {
            String key = server.apiKey();
            List<StreamClient> open = new ArrayList<>();
            try {
                for (int i = 0; i < LIMIT; i++) {
                    open.add(StreamClient.welcomed(server.baseUri(), key));
                }
                long firstExpiry = latestExpiry(db);

                // two leases later, renewed in time all along
                await().atMost(WAIT).until(() -> latestExpiry(db) >= firstExpiry + 2 * lease.toMillis());

                assertThat(refusal(server, key).path("code").asText()).isEqualTo("too_many_connections");
                open.forEach(StreamClient::assertAlive);
            } finally {
                open.forEach(StreamClient::close);
            }
        }
    }

    @Test
    void theStreamsOfAKilledInstanceStopCountingOnceTheirLeasesRanOut() throws SQLException {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer server = TestServer.postgres(db)
                        .configure(limited(Duration.ofSeconds(30)))
                        .start()) {
            String key = server.apiKey();
            // an instance held LIMIT - 1 streams of the account when it was killed: its leases stay
            leaveLeases(
                    db,
                    key,
                    LIMIT - 1,
                    System.currentTimeMillis() + Duration.ofSeconds(30).toMillis());
            List<StreamClient> open = new ArrayList<>();
            try {
                open.add(StreamClient.welcomed(server.baseUri(), key));
                assertThat(refusal(server, key).path("code").asText())
                        .as("its leases still count")
                        .isEqualTo("too_many_connections");

                expireLeases(db);

                for (int i = 1; i < LIMIT; i++) {
                    open.add(StreamClient.welcomed(server.baseUri(), key));
                }
                assertThat(refusal(server, key).path("code").asText()).isEqualTo("too_many_connections");
                assertThat(leasesOf(db, KILLED))
                        .as("the expired leases are gone")
                        .isZero();
                open.forEach(StreamClient::assertAlive);
            } finally {
                open.forEach(StreamClient::close);
            }
        }
    }

    @Test
    void aStreamWhosePlaceWasGivenAwayIsToldAndClosedAtItsInstancesNextHeartbeat() throws SQLException {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer server = TestServer.postgres(db)
                        .configure(limited(Duration.ofSeconds(1)))
                        .start();
                StreamClient kept = StreamClient.welcomed(server.baseUri(), server.apiKey());
                StreamClient givenAway = StreamClient.welcomed(server.baseUri(), server.apiKey())) {
            String id = givenAway.received().getFirst().path("connection_id").asText();
            assertThat(id).startsWith("ws_");

            // as another instance does with a lease that ran out while this one could not renew it
            try (Connection c = db.connect();
                    PreparedStatement s = c.prepareStatement("DELETE FROM stream_leases WHERE connection_id = ?")) {
                s.setString(1, id);
                assertThat(s.executeUpdate()).isEqualTo(1);
            }

            assertThat(givenAway.closeCode(WAIT)).isEqualTo(1013);
            assertThat(givenAway.received())
                    .filteredOn(m -> m.path("type").asText().equals("error"))
                    .extracting(m -> m.path("code").asText())
                    .containsExactly("unavailable");
            kept.assertAlive();
        }
    }

    /** Connects to {@code server} with {@code key}, expecting a refusal: answers the error, after checking the close code. */
    private static JsonNode refusal(TestServer server, String key) {
        try (StreamClient extra = StreamClient.connect(server.baseUri(), key)) {
            JsonNode error = extra.await("error");
            assertThat(extra.closeCode(WAIT)).isEqualTo(1013);
            assertThat(extra.received())
                    .as("never welcomed")
                    .noneMatch(m -> m.path("type").asText().equals("welcome"));
            return error;
        }
    }

    /** Writes {@code n} leases of the killed instance for {@code key}'s account, expiring at {@code expiresAt}. */
    private static void leaveLeases(PostgresTestDatabase db, String key, int n, long expiresAt) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement s =
                        c.prepareStatement("INSERT INTO stream_leases (instance_id, connection_id, account_id,"
                                + " expires_at) SELECT ?, ?, account_id, ? FROM api_keys WHERE key_hash = ?")) {
            for (int i = 0; i < n; i++) {
                s.setString(1, KILLED);
                s.setString(2, "ws_killed_" + i);
                s.setLong(3, expiresAt);
                s.setString(4, ApiKeys.hash(key));
                assertThat(s.executeUpdate()).isEqualTo(1);
            }
        }
    }

    /** The killed instance's leases ran out: nobody renewed them for a whole lease. */
    private static void expireLeases(PostgresTestDatabase db) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement s =
                        c.prepareStatement("UPDATE stream_leases SET expires_at = ? WHERE instance_id = ?")) {
            s.setLong(1, System.currentTimeMillis() - 1);
            s.setString(2, KILLED);
            assertThat(s.executeUpdate()).isPositive();
        }
    }

    private static long leasesOf(PostgresTestDatabase db, String instance) throws SQLException {
        return single(db, "SELECT COUNT(*) FROM stream_leases WHERE instance_id = '" + instance + "'");
    }

    private static long latestExpiry(PostgresTestDatabase db) throws SQLException {
        return single(db, "SELECT MAX(expires_at) FROM stream_leases");
    }

    private static long single(PostgresTestDatabase db, String query) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement s = c.prepareStatement(query);
                ResultSet r = s.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }
}

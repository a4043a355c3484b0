package dev.retrysafe.servlet;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.idempotency.StoredResponse;
import dev.retrysafe.testkit.CountingDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link IdempotencyFilter.Builder#storedAnswerTransform}: a route whose answer carries a secret
 * stores it blanked and replays the secret that is current when the retry comes, read by the
 * transform from the application's own table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoredAnswerTransformTest {

    private static final Pattern SECRET = Pattern.compile("\"secret\":(\"[^\"]*\"|null)");
    private static final Pattern ID = Pattern.compile("\"id\":\"([^\"]+)\"");

    private ThrowawayDatabase database;
    private CountingDataSource dataSource;
    private CurrentSecret transform;
    private TestServer server;
    private HttpClient http;

    @BeforeAll
    void createSchema() throws Exception {
        database = ThrowawayDatabase.h2("transform");
        dataSource = database.dataSource();
        execute(JdbcIdempotencyStore.schemaSql());
        execute("CREATE TABLE tokens (id VARCHAR(64) PRIMARY KEY, secret VARCHAR(64))");
    }

    @AfterAll
    void dropDatabase() throws Exception {
        database.close();
    }

    @BeforeEach
    void startServer() throws Exception {
        execute("DELETE FROM idempotency_keys");
        execute("DELETE FROM tokens");
        transform = new CurrentSecret();
        IdempotencyFilter filter = IdempotencyFilter.builder()
                .dataSource(dataSource)
                .store(JdbcIdempotencyStore.create(dataSource))
                .scope(request -> "acct_1")
                .storedAnswerTransform("post", "/v1/tokens", transform)
                .build();
        server = new TestServer(filter, new TokenServlet());
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    @AfterEach
    void stopServer() {
        http.close();
        server.close();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(dataSource.openConnections())
                        .as("connections left open")
                        .isZero());
    }

    @Test
    void storesTheAnswerWithoutTheSecretAndReplaysTheCurrentOneOrNoneOnceItIsGone() throws Exception {
        // given: a token made under a key; its first answer carries the secret
        HttpResponse<String> first = post("/v1/tokens", "key-1");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        String id = group(ID, first.body());
        String original = group(SECRET, first.body());
        assertThat(original).startsWith("\"sk_");
        assertThat(storedBodies())
                .singleElement()
                .asString()
                .doesNotContain(original)
                .contains("\"secret\":null");

        // when: the secret was rotated, then the request is retried
        execute("UPDATE tokens SET secret = 'sk_rotated' WHERE id = '" + id + "'");
        HttpResponse<String> afterRotation = post("/v1/tokens", "key-1");

        // then: the replay carries the current secret, read with the filter's connection returned
        assertThat(afterRotation.statusCode()).isEqualTo(201);
        assertThat(afterRotation.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(afterRotation.body()).isEqualTo(first.body().replace(original, "\"sk_rotated\""));
        assertThat(transform.openOnReplay)
                .as("connections open while the replay transform ran")
                .containsExactly(0);

        execute("DELETE FROM tokens");
        assertThat(post("/v1/tokens", "key-1").body()).isEqualTo(first.body().replace(original, "null"));
        assertThat(storedBodies()).singleElement().asString().doesNotContain("sk_");
    }

    @Test
    void anotherRouteIsStoredAsAnswered() throws Exception {
        HttpResponse<String> first = post("/v1/other", "key-o");
        HttpResponse<String> retry = post("/v1/other", "key-o");

        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body()).contains("\"secret\":\"sk_");
        assertThat(transform.openOnReplay).isEmpty();
    }

    @Test
    void aTransformThatThrowsWhileStoringRollsBackAndReleasesTheKey() throws Exception {
        transform.failToStore = true;
        HttpResponse<String> failed = post("/v1/tokens", "key-f");

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.body())
                .startsWith("{\"type\":\"/problems/internal-error\"")
                .doesNotContain("sk_");
        assertThat(count("tokens")).isZero();

        transform.failToStore = false;
        HttpResponse<String> retry = post("/v1/tokens", "key-f");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed"))
                .as("it ran again")
                .isEmpty();
        assertThat(count("tokens")).isEqualTo(1);
    }

    @Test
    void aTransformThatThrowsOnReplayAnswers500AndKeepsTheStoredAnswer() throws Exception {
        HttpResponse<String> first = post("/v1/tokens", "key-r");
        transform.failToReplay = true;

        HttpResponse<String> failed = post("/v1/tokens", "key-r");

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.body())
                .startsWith("{\"type\":\"/problems/internal-error\"")
                .endsWith("\"retryable\":true}")
                .doesNotContain("sk_");
        transform.failToReplay = false;
        HttpResponse<String> retry = post("/v1/tokens", "key-r");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(count("tokens")).isEqualTo(1);
    }

    // --- the application under test ---------------------------------------------------------------

    /** Blanks the secret before storing; on a replay puts back the token's current one, or null. */
    private final class CurrentSecret implements StoredAnswerTransform {
        final List<Integer> openOnReplay = new CopyOnWriteArrayList<>();
        volatile boolean failToStore;
        volatile boolean failToReplay;

        @Override
        public StoredResponse toStored(HttpServletRequest request, StoredResponse answer) {
            if (failToStore) {
                throw new IllegalStateException("no place to keep it");
            }
            return withSecret(answer, "null");
        }

        @Override
        public StoredResponse toReplay(HttpServletRequest request, StoredResponse stored) {
            openOnReplay.add(dataSource.openConnections());
            if (failToReplay) {
                throw new IllegalStateException("the secrets cannot be read");
            }
            String id = group(ID, new String(stored.body(), UTF_8));
            try (Connection c = dataSource.getConnection();
                    PreparedStatement s = c.prepareStatement("SELECT secret FROM tokens WHERE id = ?")) {
                s.setString(1, id);
                try (ResultSet r = s.executeQuery()) {
                    return withSecret(stored, r.next() ? "\"" + r.getString(1) + "\"" : "null");
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        private static StoredResponse withSecret(StoredResponse answer, String json) {
            String body = SECRET.matcher(new String(answer.body(), UTF_8))
                    .replaceFirst(Matcher.quoteReplacement("\"secret\":" + json));
            return new StoredResponse(answer.status(), answer.headers(), body.getBytes(UTF_8));
        }
    }

    /** Makes a token with a new secret in the request's transaction (any path) and answers it. */
    private static final class TokenServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String id = "tok_" + UUID.randomUUID();
            String secret = "sk_" + UUID.randomUUID();
            try (PreparedStatement s = RequestTransaction.connection(request)
                    .prepareStatement("INSERT INTO tokens (id, secret) VALUES (?, ?)")) {
                s.setString(1, id);
                s.setString(2, secret);
                s.executeUpdate();
            } catch (SQLException e) {
                throw new IOException(e);
            }
            response.setStatus(201);
            response.setContentType("application/json");
            response.getOutputStream().write(("{\"id\":\"" + id + "\",\"secret\":\"" + secret + "\"}").getBytes(UTF_8));
        }
    }

    // --- helpers ----------------------------------------------------------------------------------

    private HttpResponse<String> post(String path, String key) throws Exception {
        return http.send(
                HttpRequest.newBuilder(server.uri(path))
                        .timeout(Duration.ofSeconds(30))
                        .header("Idempotency-Key", key)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString(UTF_8));
    }

    /** The first capture of {@code pattern} in {@code text}: an id, or a secret as JSON ({@code "sk_..."} or null). */
    private static String group(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        assertThat(m.find()).as(pattern + " in " + text).isTrue();
        return m.group(1);
    }

    private List<String> storedBodies() throws SQLException {
        List<String> bodies = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT response_body FROM idempotency_keys")) {
            while (r.next()) {
                bodies.add(new String(r.getBytes(1), UTF_8));
            }
        }
        return bodies;
    }

    private int count(String table) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            r.next();
            return r.getInt(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}

package dev.retrysafe.acceptance.libraries;

import com.zaxxer.hikari.HikariDataSource;
import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.servlet.RateLimitFilter;
import dev.retrysafe.servlet.RequestBodyFilter;
import dev.retrysafe.servlet.RequestDecisions;
import dev.retrysafe.servlet.WebhookReceiverFilter;
import dev.retrysafe.webhooks.JdbcWebhookDeduplicator;
import dev.retrysafe.webhooks.VerifiedWebhook;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookVerifier;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * The example application's filters and servlets, built once at start and registered by
 * {@link JettyApp} or {@link TomcatApp}. Immutable and threadsafe.
 *
 * @param authentication first filter on {@code /v1/*}: who the caller is
 * @param requestDecisions second filter on {@code /v1/*}: rate limit, body, idempotency key, in that order
 * @param orders the servlet of {@code /v1/orders}
 * @param webhookReceiver the filter on {@code /webhooks/*}: verifies and de-duplicates deliveries
 * @param webhookEvents the servlet of {@code /webhooks/orders}
 */
public record OrdersApplication(
        Filter authentication,
        RequestDecisions requestDecisions,
        HttpServlet orders,
        WebhookReceiverFilter webhookReceiver,
        HttpServlet webhookEvents) {

    /** The application over {@code dataSource}, whose tables exist (see {@link #createTables}). */
    public static OrdersApplication create(
            DataSource dataSource,
            Map<String, String> accountsByApiKey,
            WebhookSecret webhookSecret,
            Consumer<VerifiedWebhook> events) {
        RateLimitFilter rateLimits = RateLimitFilter.builder()
                .store(InMemoryRateLimitStore.builder().build()) // RedisRateLimitStore to share counters
                .policy(Policy.builder("account")
                        .scope(Scope.account())
                        .limit(60, Duration.ofMinutes(1))
                        .build())
                .facts(request -> new RequestFacts(
                        null, BearerAuthentication.account(request), request.getRemoteAddr(), null, null, 1))
                .build();
        IdempotencyFilter idempotency = IdempotencyFilter.builder()
                .dataSource(dataSource) // the request's transaction comes from here
                .store(JdbcIdempotencyStore.create(dataSource))
                .scope(BearerAuthentication::account) // a key belongs to one account
                .route("POST", "/v1/orders", true) // a key is required here
                .build();
        RequestDecisions requestDecisions = RequestDecisions.builder()
                .rateLimits(rateLimits)
                .bodies(RequestBodyFilter.builder().maxBodyBytes(64 * 1024).build())
                .idempotency(idempotency)
                .build();
        WebhookReceiverFilter webhookReceiver = WebhookReceiverFilter.builder()
                .verifier(WebhookVerifier.builder().secret(webhookSecret).build())
                .deduplicator(JdbcWebhookDeduplicator.create(dataSource)) // shared by every instance
                .build();
        return new OrdersApplication(
                new BearerAuthentication(accountsByApiKey),
                requestDecisions,
                new OrdersServlet(dataSource),
                webhookReceiver,
                new WebhookEventsServlet(events));
    }

    /** The application on PostgreSQL, from {@code DATABASE_URL}, {@code API_KEY} and {@code WEBHOOK_SECRET}. */
    public static OrdersApplication fromEnvironment() {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(environment("DATABASE_URL")); // e.g. jdbc:postgresql://localhost:5432/shop?user=shop
        createTables(dataSource);
        return create(
                dataSource,
                Map.of(environment("API_KEY"), "acct_1"),
                WebhookSecret.parse(environment("WEBHOOK_SECRET")),
                webhook -> System.out.println("webhook " + webhook.id() + ": " + webhook.bodyAsString()));
    }

    /**
     * Creates the tables that are missing: Retrysafe's, from the DDL its modules own, and the
     * example's {@code orders}. An application with a migration tool runs the same DDL from it.
     */
    public static void createTables(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            DatabaseMetaData metaData = connection.getMetaData();
            Map<String, List<String>> tables = Map.of(
                    "idempotency_keys",
                    JdbcIdempotencyStore.schemaStatements(),
                    JdbcWebhookDeduplicator.TABLE,
                    JdbcWebhookDeduplicator.schemaStatements(),
                    "orders",
                    List.of("CREATE TABLE orders (id VARCHAR(40) PRIMARY KEY,"
                            + " account VARCHAR(255) NOT NULL, body TEXT NOT NULL)"));
            for (Map.Entry<String, List<String>> table : tables.entrySet()) {
                if (!exists(metaData, table.getKey())) {
                    for (String sql : table.getValue()) {
                        statement.execute(sql);
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the tables", e);
        }
    }

    private static boolean exists(DatabaseMetaData metaData, String table) throws SQLException {
        String name = metaData.storesUpperCaseIdentifiers() ? table.toUpperCase(Locale.ROOT) : table;
        try (ResultSet found = metaData.getTables(null, null, name, new String[] {"TABLE", "BASE TABLE"})) {
            return found.next();
        }
    }

    private static String environment(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("set " + name);
        }
        return value;
    }
}

package dev.retrysafe.server.streams;

import dev.retrysafe.liveevents.Callers;
import dev.retrysafe.liveevents.ConnectionFactory;
import dev.retrysafe.liveevents.LiveEvents;
import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.config.DatabaseConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.http.AuthFilter;
import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.ProblemType;
import dev.retrysafe.server.http.Problems;
import dev.retrysafe.server.http.PrometheusText;
import dev.retrysafe.server.http.RequestAccount;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The server's live event stream, {@value #PATH}: the live-events module wired to the server's
 * accounts (its callers), its {@code events} table (their source), its problems and its
 * configuration, on PostgreSQL across instances or in-process in the embedded mode. Stateless.
 */
public final class EventStream {

    /** The path of the stream. */
    public static final String PATH = "/v1/events/stream";
    /** The topic of delivery attempts. */
    public static final String DELIVERY_ATTEMPTED = "delivery.attempted";
    /** The topic of job changes. */
    public static final String JOB_UPDATED = "job.updated";

    private EventStream() {}

    /**
     * Starts the stream over {@code dataSource}, its keys checked by {@code auth}; the result
     * joins {@code resources} (start it before whatever signals it, so that it closes after them).
     */
    public static LiveEvents start(
            ServerConfig config, DataSource dataSource, AuthFilter auth, Clock clock, List<AutoCloseable> resources) {
        LiveEvents.Builder builder = LiveEvents.builder()
                .config(config.streams())
                .events(new DatabaseEvents(new Transactions(dataSource)))
                .callers(callers(auth))
                .clock(clock)
                .problems(EventStream::problem);
        if (config.database().postgres()) {
            builder.postgres(dataSource, connector(config.database(), config.dataDir()));
        }
        LiveEvents live = builder.start();
        resources.add(live);
        return live;
    }

    /** The stream's section of {@code GET /metrics}. */
    public static Supplier<String> metricsText(LiveEvents live) {
        return () -> {
            PrometheusText text = new PrometheusText();
            live.writeMetrics(text);
            return text.toString();
        };
    }

    private static Callers callers(AuthFilter auth) {
        return new Callers() {
            @Override
            public @Nullable String accountOf(HttpServletRequest upgrade) {
                return RequestAccount.idOf(upgrade);
            }

            @Override
            public Optional<String> accountOfKey(String apiKey) throws SQLException {
                return auth.authenticate(apiKey).map(Account::id);
            }
        };
    }

    /** The module's refusals as the server's problems: 405, 426, and 400 for a broken upgrade. */
    private static void problem(HttpServletResponse response, int status, String detail, Map<String, String> headers)
            throws IOException {
        ProblemType type = switch (status) {
            case 405 -> ProblemType.METHOD_NOT_ALLOWED;
            case 426 -> ProblemType.UPGRADE_REQUIRED;
            default -> ProblemType.BAD_REQUEST;
        };
        Problem problem = Problem.of(type, detail);
        for (Map.Entry<String, String> h : headers.entrySet()) {
            problem = problem.withHeader(h.getKey(), h.getValue());
        }
        Problems.respond(response, problem);
    }

    private static ConnectionFactory connector(DatabaseConfig database, Path dataDir) {
        return () -> {
            Properties p = new Properties();
            if (!database.user().isEmpty()) {
                p.setProperty("user", database.user());
            }
            if (!database.password().isEmpty()) {
                p.setProperty("password", database.password());
            }
            p.setProperty("ApplicationName", "retrysafe-stream");
            return DriverManager.getConnection(database.jdbcUrl(dataDir), p);
        };
    }
}

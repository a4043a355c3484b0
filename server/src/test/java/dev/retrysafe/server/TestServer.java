package dev.retrysafe.server;

import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.server.bank.Bank;
import dev.retrysafe.server.config.BankConfig;
import dev.retrysafe.server.config.DatabaseConfig;
import dev.retrysafe.server.config.IdempotencyConfig;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.config.WebhooksConfig;
import dev.retrysafe.server.reports.ReportPacing;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A Retrysafe server running in this JVM on a random loopback port, for tests. Start it with
 * {@link #h2()} (embedded H2 in a temporary folder, deleted on close) or
 * {@link #postgres(PostgresTestDatabase)}, adjust it with the builder, and close it (which stops
 * it gracefully and deletes the temporary folder). Two accounts exist from the start, with the
 * keys {@link #apiKey()} and {@link #otherApiKey()}.
 *
 * <pre>{@code
 * try (TestServer server = TestServer.h2().bankLatency(Duration.ofMillis(100)).start()) {
 *     HttpRequest req = HttpRequest.newBuilder(server.uri("/v1/payments"))
 *             .header("Authorization", "Bearer " + server.apiKey()) ...
 * }
 * }</pre>
 */
public final class TestServer implements AutoCloseable {

    private final RetrysafeServer server;
    private final ServerConfig config;
    private final String apiKey;
    private final String otherApiKey;
    private final @Nullable Path tempDir;
    private final ByteArrayOutputStream out;

    private TestServer(
            RetrysafeServer server,
            ServerConfig config,
            String apiKey,
            String otherApiKey,
            @Nullable Path tempDir,
            ByteArrayOutputStream out) {
        this.server = server;
        this.config = config;
        this.apiKey = apiKey;
        this.otherApiKey = otherApiKey;
        this.tempDir = tempDir;
        this.out = out;
    }

    /** A builder for a server on the embedded H2 database in a new temporary folder. */
    public static Builder h2() {
        return new Builder(null, null);
    }

    /** A builder for a server on the embedded H2 database in {@code dataDir} (kept on close). */
    public static Builder h2(Path dataDir) {
        return new Builder(dataDir, null);
    }

    /** A builder for a server on {@code database}. */
    public static Builder postgres(PostgresTestDatabase database) {
        return new Builder(null, new DatabaseConfig(database.jdbcUrl(), database.user(), "", 10));
    }

    /** A builder for a server on the PostgreSQL (or H2) database at {@code jdbcUrl}. */
    public static Builder database(String jdbcUrl, String user, String password) {
        return new Builder(null, new DatabaseConfig(jdbcUrl, user, password, 10));
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI baseUri() {
        return server.baseUri();
    }

    /** The URI of {@code path} (such as {@code /v1/payments?limit=2}) on this server. */
    public URI uri(String path) {
        return baseUri().resolve(path);
    }

    /**
     * Every route the server answers, as {@code "GET /v1/payments/{id}"}, read from its router and
     * its servlet mappings (a servlet's methods as it was mapped with, {@code "*"} if it was not).
     */
    public List<String> routes() {
        return server.routes();
    }

    /** The accept queue of each connector. */
    public List<Integer> acceptQueues() {
        return server.acceptQueues();
    }

    /** The port. */
    public int port() {
        return server.port();
    }

    /** The API key of the first test account. */
    public String apiKey() {
        return apiKey;
    }

    /** The API key of a second account, for tenant isolation tests. */
    public String otherApiKey() {
        return otherApiKey;
    }

    /** Reads {@code file} (no environment) and applies its rate limits, as {@code SIGHUP} does. */
    public dev.retrysafe.server.ratelimits.RateLimitReload.Outcome reload(Path file) {
        return server.reload(file, java.util.Map.of());
    }

    /** Requests waiting for a connection of the request pool now (what load shedding goes by). */
    public int waitingForConnection() {
        return server.waitingForConnection();
    }

    /** The configuration it runs with. */
    public ServerConfig config() {
        return config;
    }

    /** What the server printed on its standard output (the demo key message, in embedded mode). */
    public String output() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Stops the server gracefully and deletes its temporary folder. */
    @Override
    public void close() {
        server.close();
        if (tempDir != null) {
            deleteTree(tempDir);
        }
    }

    /** Deletes {@code dir} and everything in it. */
    public static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sets up a {@link TestServer}. Not threadsafe. */
    public static final class Builder {
        private final @Nullable Path dataDir;
        private final @Nullable DatabaseConfig database;
        private Duration bankLatency = Duration.ZERO;
        private double declineRate;
        private double errorRate;
        private boolean idempotency = true;
        private Duration lease = Duration.ofSeconds(30);
        private IdempotencyConfig.Claims claims = IdempotencyConfig.Claims.AUTO;
        private Clock clock = Clock.systemUTC();
        private UnaryOperator<ServerConfig> customize = UnaryOperator.identity();
        private @Nullable RateLimitConfig rateLimits;
        private @Nullable WebhooksConfig webhooks;
        private Bank.Processing bankProcessing = Bank.Processing.SLEEP;
        private ReportPacing reportPacing = ReportPacing.SLEEP;

        private Builder(@Nullable Path dataDir, @Nullable DatabaseConfig database) {
            this.dataDir = dataDir;
            this.database = database;
        }

        /** How long the simulated bank takes (default 0, unlike the server's 100 ms). */
        public Builder bankLatency(Duration latency) {
            this.bankLatency = latency;
            return this;
        }

        /** Share of charges the bank declines (default 0). */
        public Builder declineRate(double rate) {
            this.declineRate = rate;
            return this;
        }

        /** Share of charges the bank cannot process, answered 503 (default 0). */
        public Builder errorRate(double rate) {
            this.errorRate = rate;
            return this;
        }

        /** Whether the idempotency filter runs (default true). */
        public Builder idempotency(boolean enabled) {
            this.idempotency = enabled;
            return this;
        }

        /** The idempotency lease (default 30 s). */
        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        /** How idempotency claims are held (default auto, as the server's default). */
        public Builder claims(IdempotencyConfig.Claims claims) {
            this.claims = claims;
            return this;
        }

        /** The clock of the server (default the system clock), e.g. a {@code FakeClock}. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * How the simulated bank spends a charge's processing time (default: sleep for the bank
         * latency). A test can hold charges on a latch to reach "still at the bank" without timing.
         */
        public Builder bankProcessing(Bank.Processing processing) {
            this.bankProcessing = processing;
            return this;
        }

        /**
         * How reports spend their least duration (default: as shipped). A test can hold a running
         * report between two checkpoints to reach "running, cancel requested" without timing.
         */
        public Builder reportPacing(ReportPacing pacing) {
            this.reportPacing = pacing;
            return this;
        }

        /**
         * Rate limits as in {@code limits} (default: off, so that tests about other things are not
         * refused; {@code ServerConfig.defaults().rateLimits()} gives the shipped policies).
         */
        public Builder rateLimits(RateLimitConfig limits) {
            this.rateLimits = limits;
            return this;
        }

        /** Webhook delivery settings (default: the shipped ones: https only, no private targets). */
        public Builder webhooks(WebhooksConfig settings) {
            this.webhooks = settings;
            return this;
        }

        /**
         * Webhooks to a receiver on this machine: {@code http} allowed, {@code 127.0.0.0/8} and
         * {@code ::1} allowed, the retry schedule {@code schedule} without jitter, so tests reach
         * retries in milliseconds.
         */
        public Builder loopbackWebhooks(List<Duration> schedule) {
            this.webhooks = ServerConfig.defaults()
                    .webhooks()
                    .withTargets(List.of("127.0.0.0/8", "::1/128"), false)
                    .withRetrySchedule(schedule, 0);
            return this;
        }

        /** Any other change to the configuration, applied last. */
        public Builder configure(UnaryOperator<ServerConfig> change) {
            this.customize = change;
            return this;
        }

        /** Starts the server; it is listening when this returns. */
        public TestServer start() {
            Path temp = null;
            try {
                Path dir = dataDir;
                if (dir == null) {
                    temp = Files.createTempDirectory("retrysafe-test-");
                    dir = temp;
                }
                String key = ApiKeys.generate();
                String other = ApiKeys.generate();
                ServerConfig base = ServerConfig.defaults();
                ServerConfig config = customize.apply(base.withHost("127.0.0.1")
                        .withPort(0)
                        .withDataDir(dir)
                        .withDatabase(database != null ? database : base.database())
                        .withBank(new BankConfig(bankLatency, declineRate, errorRate))
                        .withIdempotency(new IdempotencyConfig(
                                idempotency,
                                lease,
                                base.idempotency().retention(),
                                base.idempotency().purgeInterval(),
                                claims))
                        .withRateLimits(
                                rateLimits != null
                                        ? rateLimits
                                        : base.rateLimits().disabled())
                        .withWebhooks(webhooks != null ? webhooks : base.webhooks())
                        .withShutdownTimeout(Duration.ofSeconds(5))
                        .withBootstrapApiKeys(List.of(key, other)));
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                RetrysafeServer server = RetrysafeServer.start(
                        config,
                        clock,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        bankProcessing,
                        reportPacing);
                return new TestServer(server, config, key, other, temp, out);
            } catch (Exception e) {
                if (temp != null) {
                    deleteTree(temp);
                }
                throw new IllegalStateException("test server did not start: " + e, e);
            }
        }
    }
}

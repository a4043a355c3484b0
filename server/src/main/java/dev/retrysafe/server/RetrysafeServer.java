package dev.retrysafe.server;

import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.idempotency.ClaimMode;
import dev.retrysafe.idempotency.JdbcIdempotencyStore;
import dev.retrysafe.liveevents.LiveEvents;
import dev.retrysafe.server.accounts.AccountStore;
import dev.retrysafe.server.bank.Bank;
import dev.retrysafe.server.config.ConfigException;
import dev.retrysafe.server.config.ConfigLoader;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.db.ConnectionCheck;
import dev.retrysafe.server.db.Database;
import dev.retrysafe.server.db.DatabaseUnavailableException;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.docs.DocsRoutes;
import dev.retrysafe.server.docs.LandingPage;
import dev.retrysafe.server.docs.OpenApiDocument;
import dev.retrysafe.server.events.EventRoutes;
import dev.retrysafe.server.http.AuthFilter;
import dev.retrysafe.server.http.DecisionCounts;
import dev.retrysafe.server.http.IdempotentRoutes;
import dev.retrysafe.server.http.MetricsRoute;
import dev.retrysafe.server.http.Probes;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.RequestLimits;
import dev.retrysafe.server.payments.PaymentRoutes;
import dev.retrysafe.server.payments.Payments;
import dev.retrysafe.server.payments.RefundRoutes;
import dev.retrysafe.server.payments.Refunds;
import dev.retrysafe.server.ratelimits.RateLimitNotice;
import dev.retrysafe.server.ratelimits.RateLimitReload;
import dev.retrysafe.server.ratelimits.RateLimitRoutes;
import dev.retrysafe.server.ratelimits.RateLimiting;
import dev.retrysafe.server.ratelimits.RedisStoreMetricsText;
import dev.retrysafe.server.reports.JobMetricsText;
import dev.retrysafe.server.reports.ReportPacing;
import dev.retrysafe.server.reports.Reports;
import dev.retrysafe.server.streams.EventStream;
import dev.retrysafe.server.webhooks.DeliveryMetricsRoute;
import dev.retrysafe.server.webhooks.DispatcherWakeUp;
import dev.retrysafe.server.webhooks.EndpointSecretReplays;
import dev.retrysafe.server.webhooks.Webhooks;
import dev.retrysafe.servlet.DecisionListener;
import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.servlet.RateLimitFilter;
import io.javalin.Javalin;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Retrysafe server: database pools, migrations, bootstrap accounts, the purge task, the
 * webhook dispatcher, the job workers and the HTTP server. {@link #close()} stops it gracefully: no new
 * connections, in-flight requests finish (bounded by the shutdown timeout), then the dispatcher
 * lets its attempts in flight finish and gives back its other claims, then the webhook sender and
 * finally the pools close. This class is threadsafe.
 */
public final class RetrysafeServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RetrysafeServer.class);

    private final Javalin app;
    private final List<AutoCloseable> resources;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final IntSupplier waitingForConnection;
    private final RateLimitReload rateLimitReload;

    private RetrysafeServer(
            Javalin app,
            List<AutoCloseable> resources,
            IntSupplier waitingForConnection,
            RateLimitReload rateLimitReload) {
        this.waitingForConnection = waitingForConnection;
        this.rateLimitReload = rateLimitReload;
        this.app = app;
        this.resources = resources;
    }

    /**
     * Starts a server with {@code config}; times come from {@code clock}; the demo key is printed
     * on {@code out}. Fails if the database cannot be migrated or the port bound.
     */
    public static RetrysafeServer start(ServerConfig config, Clock clock, PrintStream out)
            throws SQLException, IOException {
        return start(config, clock, out, Bank.Processing.SLEEP);
    }

    /**
     * Like {@link #start(ServerConfig, Clock, PrintStream)}, with the simulated bank spending its
     * processing time through {@code bankProcessing} (tests hold charges with it).
     */
    public static RetrysafeServer start(
            ServerConfig config, Clock clock, PrintStream out, Bank.Processing bankProcessing)
            throws SQLException, IOException {
        return start(config, clock, out, bankProcessing, ReportPacing.SLEEP);
    }

    /**
     * Like {@link #start(ServerConfig, Clock, PrintStream, Bank.Processing)}, with reports spending
     * their least duration through {@code reportPacing} (tests hold a running report with it).
     */
    public static RetrysafeServer start(
            ServerConfig config,
            Clock clock,
            PrintStream out,
            Bank.Processing bankProcessing,
            ReportPacing reportPacing)
            throws SQLException, IOException {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            Database db;
            try {
                db = Storage.open(config, "retrysafe", resources);
            } catch (DatabaseUnavailableException e) {
                throw config.database().embedded() ? EmbeddedH2.explain(config.dataDir(), e) : e;
            }
            if (config.database().embedded()) {
                resources.add(EmbeddedH2.serve(config.dataDir()));
            }
            // the bank has its own pool, as an external system would; sharing the request pool could
            // deadlock when every request holds a connection while waiting for the bank's
            // The bank's records and the idempotency claims need no flush of their own: the
            // payment's (synchronous) commit flushes them too, and without a committed payment
            // losing them in a database crash only means a retry claims and charges afresh.
            Database bankDb = Database.open(
                    config.database(),
                    config.dataDir(),
                    "retrysafe-bank",
                    config.database().poolSize(),
                    Database.Durability.MAY_LOSE_UNFLUSHED);
            resources.add(bankDb);
            DataSource ds = db.dataSource();
            Ids ids = new Ids(clock);
            Transactions transactions = new Transactions(ds);
            AccountStore accounts = new AccountStore(transactions, ids, clock);
            RateLimitNotice.check(config.rateLimits(), transactions, clock);
            Bootstrap.ensureKeys(accounts, config.bootstrapApiKeys());
            if (config.database().embedded()) {
                Bootstrap.ensureDemo(accounts, config.dataDir(), out);
            }

            // sheds by the requests waiting for a connection of the request pool
            RequestLimits limits = new RequestLimits(config.limits(), db::waitingForConnection, db.poolSize());
            // one count of the filters' decisions, shown by /metrics under the starter's meter names
            DecisionCounts decisions = new DecisionCounts();
            RedisStoreMetricsText redisMetrics = new RedisStoreMetricsText();
            IdempotencyFilter idempotency = null;
            if (config.idempotency().enabled()) {
                ClaimMode claims = config.idempotency().claimMode(config.database());
                DataSource storeDs = ds;
                if (claims == ClaimMode.ROWS) {
                    // claim rows, releases and purges run on their own autocommit pool, whose
                    // commits need not be flushed: the request's synchronous commit flushes them
                    Database claimsDb = Database.open(
                            config.database(),
                            config.dataDir(),
                            "retrysafe-claims",
                            config.database().poolSize(),
                            Database.Durability.MAY_LOSE_UNFLUSHED);
                    resources.add(claimsDb);
                    storeDs = claimsDb.dataSource();
                }
                // with locks a claim lives in the request's transaction (the filter's data source)
                // and costs no transaction of its own; completion always runs in that transaction
                JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(storeDs)
                        .retention(config.idempotency().retention())
                        .claims(claims)
                        .build();
                LOG.info("idempotency claims: {}", claims);
                // endpoint secrets are never stored with an answer: a replay reads the current one
                IdempotencyFilter.Builder idempotencyBuilder = EndpointSecretReplays.configure(
                                IdempotentRoutes.configure(IdempotencyFilter.builder()),
                                WebhookEndpoints.builder(ds).clock(clock).build())
                        .dataSource(ds)
                        .store(DecisionListener.counting(store, decisions))
                        .clock(clock)
                        .scope(RequestAccount::idOf)
                        .lease(config.idempotency().lease())
                        .maxBodyBytes(config.maxBodyBytes())
                        .problemTypeBase("/problems/")
                        // Allow: a replayed 405 must still say which methods the path takes
                        .storedHeaders("Content-Type", "Location", "Allow", "Retry-After");
                if (limits.shedder() != null) {
                    idempotencyBuilder.shedding(limits.shedder()); // a replay is never shed
                }
                idempotency = idempotencyBuilder.build();
                resources.add(schedulePurge(store, config, clock));
            } else {
                LOG.warn("idempotency.enabled is false: retried POSTs are NOT safe (benchmark mode)");
            }

            Bank bank = new Bank(
                    bankDb.dataSource(),
                    config.bank(),
                    clock,
                    RandomGenerator.getDefault(),
                    bankProcessing,
                    config.idempotency().retention());
            AuthFilter auth = new AuthFilter(accounts);
            // started before what signals it, so that it closes after them
            LiveEvents live = EventStream.start(config, ds, auth, clock, resources);
            Webhooks webhooks = Webhooks.start(config, ds, clock, resources, live);
            Reports reports = Reports.start(config, ds, ids, clock, resources, live, reportPacing);
            EventRoutes events = new EventRoutes(transactions);
            Probes probes = new Probes(db, config.redis());
            warnWhenRedisIsSilent(config, probes);
            HttpApp.Handlers handlers = new HttpApp.Handlers(
                    probes,
                    new PaymentRoutes(transactions, new Payments(bank, ids, clock), config.maxBodyBytes()),
                    new RefundRoutes(transactions, new Refunds(ids, clock), config.maxBodyBytes()),
                    new RateLimitRoutes(
                            config.rateLimits().enabled(), RateLimiting.versions(config.rateLimits(), clock)),
                    events,
                    webhooks.routes(config.maxBodyBytes(), events::has),
                    reports.routes(config.maxBodyBytes()),
                    new DispatcherWakeUp(DispatcherWakeUp.targets(
                            webhooks.dispatcher()::wakeUp, reports.jobs()::wakeUp, live::eventsCommitted)),
                    new MetricsRoute(List.of(
                            new DeliveryMetricsRoute(webhooks.dispatcher()),
                            new JobMetricsText(reports.jobs()),
                            EventStream.metricsText(live),
                            limits,
                            decisions,
                            redisMetrics)),
                    new DocsRoutes(OpenApiDocument.load()),
                    new LandingPage(demoKeyFile(config)),
                    live.servlet());
            RateLimitFilter rateLimit = RateLimiting.filter(config, clock, resources, decisions, redisMetrics);
            Javalin app = HttpApp.create(config, auth, limits, rateLimit, idempotency, handlers);
            app.start();
            LOG.info(
                    "Retrysafe listening on port {} with {} database {}",
                    app.port(),
                    config.database().embedded() ? "embedded" : "external",
                    config.database().describe(config.dataDir()));
            return new RetrysafeServer(
                    app,
                    resources,
                    db::waitingForConnection,
                    new RateLimitReload(rateLimit, config.rateLimits(), transactions, clock));
        } catch (SQLException | IOException | RuntimeException e) {
            closeAll(resources);
            throw e;
        }
    }

    /**
     * One line at start when Redis is configured but does not answer: the server starts anyway
     * (a Redis outage must not become a total one), so without it the first sign would be a
     * {@code degraded} {@code /ready} or rate limits that fail open or closed.
     */
    private static void warnWhenRedisIsSilent(ServerConfig config, Probes probes) {
        if (config.redis().configured() && !probes.redisAnswers()) {
            LOG.warn(
                    "Redis at {} does not answer (redis.url, RETRYSAFE_REDIS_URL): starting without it; rate limits"
                            + " fail open or closed per policy and /ready says degraded until it answers",
                    config.redis().describe());
        }
    }

    private static AutoCloseable schedulePurge(JdbcIdempotencyStore store, ServerConfig config, Clock clock) {
        ScheduledExecutorService purger = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "retrysafe-idempotency-purge");
            t.setDaemon(true);
            return t;
        });
        long every = config.idempotency().purgeInterval().toMillis();
        purger.scheduleWithFixedDelay(
                () -> {
                    try {
                        int purged = store.purge(
                                clock.instant().minus(config.idempotency().retention()));
                        if (purged > 0) {
                            LOG.info(
                                    "purged {} idempotency keys older than {}",
                                    purged,
                                    config.idempotency().retention());
                        }
                    } catch (RuntimeException e) {
                        // the next run tries again; a failed purge only delays deletion
                        LOG.warn("idempotency key purge failed: {}", e.toString());
                    }
                },
                every,
                every,
                TimeUnit.MILLISECONDS);
        return purger::shutdownNow;
    }

    /**
     * Reads the configuration again from {@code file} (or the defaults) and {@code env}, as at
     * start, and applies its rate limits ({@code SIGHUP}): every
     * policy at once, between two requests, counters carried on where a policy's name and
     * algorithm stay; or nothing, with the reason. Other settings need a restart. Logs what it did.
     */
    public RateLimitReload.Outcome reload(@Nullable Path file, Map<String, String> env) {
        ServerConfig fresh;
        try {
            fresh = ConfigLoader.load(file, env);
        } catch (ConfigException e) {
            LOG.warn("configuration reload refused, nothing changed: {}", e.getMessage());
            return new RateLimitReload.Outcome(false, e.getMessage());
        }
        return reload(fresh);
    }

    /** Like {@link #reload(Path, Map)}, with a configuration already read. */
    public RateLimitReload.Outcome reload(ServerConfig fresh) {
        RateLimitReload.Outcome outcome;
        try {
            outcome = rateLimitReload.apply(fresh.rateLimits());
        } catch (ConfigException e) {
            outcome = new RateLimitReload.Outcome(false, e.getMessage());
        } catch (SQLException | RuntimeException e) {
            LOG.error("configuration reload failed; the running rate limits stay", e);
            return new RateLimitReload.Outcome(false, "reload failed: " + e);
        }
        if (outcome.applied()) {
            LOG.info("configuration reloaded: {}", outcome.message());
        } else {
            LOG.warn("configuration reload changed nothing: {}", outcome.message());
        }
        return outcome;
    }

    /** Requests waiting for a connection of the request pool now: the load shedding goes by (tests). */
    int waitingForConnection() {
        return waitingForConnection.getAsInt();
    }

    /** The port the server listens on (the real one when configured with 0). */
    public int port() {
        return app.port();
    }

    /** The accept queue of each of the server's connectors (for tests). */
    List<Integer> acceptQueues() {
        return java.util.Arrays.stream(app.jettyServer().server().getConnectors())
                .filter(c -> c instanceof org.eclipse.jetty.server.ServerConnector)
                .map(c -> ((org.eclipse.jetty.server.ServerConnector) c).getAcceptQueueSize())
                .toList();
    }

    /**
     * Every route the HTTP server answers, as {@code "GET /v1/payments/{id}"} (Javalin's path
     * syntax), read from its router and from the servlets mapped beside it (the live event
     * stream): what the tests compare with the OpenAPI document.
     */
    List<String> routes() {
        return HttpApp.routes(app);
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI baseUri() {
        return URI.create("http://127.0.0.1:" + port());
    }

    /** Stops gracefully; calling it again does nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        LOG.info("stopping: finishing in-flight requests");
        app.stop();
        closeAll(resources);
        LOG.info("stopped");
    }

    private static void closeAll(List<AutoCloseable> resources) {
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                LOG.warn("failed to close {}: {}", resources.get(i), e.toString());
            }
        }
    }

    /**
     * The configuration a one-off command of the command line ({@code migrate},
     * {@code create-account}) uses: through a running server's loopback port to the embedded
     * database when one answers, else as given.
     */
    public static ServerConfig forOneOffCommand(ServerConfig config) {
        return EmbeddedH2.forOneOffCommand(config);
    }

    /**
     * The file that holds the demo account's API key, which the server makes on its first start
     * with the embedded database; {@code null} for an external database, which has no demo account.
     */
    public static @Nullable Path demoKeyFile(ServerConfig config) {
        return config.database().embedded()
                ? config.dataDir()
                        .resolve(Bootstrap.DEMO_KEY_FILE)
                        .toAbsolutePath()
                        .normalize()
                : null;
    }

    /**
     * Whether the data folder of {@code config} holds the embedded database already (a server or
     * {@code migrate} made it), so that a one-off command can refuse to make a new one by mistake.
     */
    public static boolean embeddedDatabaseExists(ServerConfig config) {
        return EmbeddedH2.exists(config.dataDir());
    }

    /** Opens the database of {@code config} for a one-off command and migrates it; the caller closes it. */
    public static Database openStorage(ServerConfig config, String name) throws IOException {
        return Storage.open(config, name, null);
    }

    /** Opening the request pool, shared with the command line's one-off commands. */
    static final class Storage {

        private Storage() {}

        /** Creates the data folder when embedded, opens a pool and migrates; the pool joins {@code resources}. */
        static Database open(ServerConfig config, String name, @Nullable List<AutoCloseable> resources)
                throws IOException {
            if (config.database().embedded()) {
                Files.createDirectories(config.dataDir());
                EmbeddedH2.loopbackOnly();
            }
            // one line that says what to do, rather than the migration's error several causes deep
            ConnectionCheck.connect(config.database(), config.dataDir());
            Database db = Database.open(
                    config.database(), config.dataDir(), name, config.database().poolSize());
            if (resources != null) {
                resources.add(db);
            }
            db.migrate();
            return db;
        }
    }
}

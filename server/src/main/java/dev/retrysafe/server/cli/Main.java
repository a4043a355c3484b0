package dev.retrysafe.server.cli;

import dev.retrysafe.server.RetrysafeServer;
import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.accounts.AccountStore;
import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.server.config.ConfigException;
import dev.retrysafe.server.config.ConfigLoader;
import dev.retrysafe.server.config.RateLimitVersions;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.db.Database;
import dev.retrysafe.server.db.DatabaseUnavailableException;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.db.Transactions;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;

/**
 * The command line of the Retrysafe server: {@code serve} (default), {@code create-account},
 * {@code migrate}, {@code webhooks sign|verify|listen}, {@code demo retry|lost-answer}, {@code --help},
 * {@code --version} ({@code cluster} is the {@code run} script's, not the jar's). Exit
 * codes: 0 success, 1 failure (or a rejected webhook, or a demo whose outcome was not the promised
 * one), 2 bad command line or configuration. The main class of the server's jar; it starts the
 * HTTP app ({@link RetrysafeServer}) and never the other way round.
 */
public final class Main {

    /** Exit code of a bad command line or configuration. */
    public static final int USAGE = 2;
    /** Exit code of a failure at run time. */
    public static final int FAILURE = 1;

    private Main() {}

    /** Runs the command in {@code args} and exits with its code (serving until SIGTERM). */
    public static void main(String[] args) {
        Command command = CommandLine.parse(args);
        if (command instanceof Command.Serve) {
            int code = serve(command, System.getenv(), System.out, System.err);
            if (code != 0) {
                System.exit(code);
            }
            return;
        }
        System.exit(run(command, System.getenv(), System.in, System.out, System.err));
    }

    /**
     * Runs every command but {@code serve}, returning the exit code; a separate method so tests
     * can call it in-process.
     */
    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        return run(args, env, InputStream.nullInputStream(), out, err);
    }

    /**
     * Runs every command but {@code serve} with {@code in} as standard input (the body of
     * {@code webhooks sign} and {@code webhooks verify}), returning the exit code.
     */
    public static int run(String[] args, Map<String, String> env, InputStream in, PrintStream out, PrintStream err) {
        return run(CommandLine.parse(args), env, in, out, err);
    }

    private static int run(Command command, Map<String, String> env, InputStream in, PrintStream out, PrintStream err) {
        try {
            return switch (command) {
                case Command.Help h -> {
                    out.print(CommandLine.USAGE);
                    yield 0;
                }
                case Command.Version v -> {
                    out.println(Version.line());
                    yield 0;
                }
                case Command.Invalid invalid -> {
                    err.println("retrysafe: " + invalid.message());
                    err.println("Run with --help to see the commands and options.");
                    yield USAGE;
                }
                case Command.Migrate m -> {
                    ServerConfig config = RetrysafeServer.forOneOffCommand(ConfigLoader.load(m.config(), env));
                    RetrysafeServer.openStorage(config, "retrysafe-migrate").close();
                    err.println("Database migrated: " + config.database().describe(config.dataDir()));
                    yield 0;
                }
                case Command.CreateAccount c -> createAccount(c, ConfigLoader.load(c.config(), env), out, err);
                case Command.WebhookSign sign -> WebhookCommands.sign(sign, in, out, err);
                case Command.WebhookVerify verify -> WebhookCommands.verify(verify, in, out, err, Clock.systemUTC());
                case Command.WebhookListen listen -> WebhookCommands.listen(listen, out, err, Clock.systemUTC());
                case Command.DemoRetry retry -> DemoCommands.retry(out, DemoEnvironment.system());
                case Command.DemoLostAnswer lost -> DemoCommands.lostAnswer(lost, out, err, DemoEnvironment.system());
                case Command.Serve s -> throw new IllegalArgumentException("serve is run by main()");
            };
        } catch (ConfigException e) {
            err.println("retrysafe: invalid configuration: " + e.getMessage());
            return USAGE;
        } catch (DatabaseUnavailableException e) {
            err.println("retrysafe: " + e.getMessage());
            return FAILURE;
        } catch (Exception e) {
            err.println("retrysafe: " + e);
            return FAILURE;
        }
    }

    /**
     * Finds the database as the server does (the same {@code --config} and variables); with the
     * embedded database, goes through the server running on that folder, and refuses a folder
     * that holds no database yet unless told to make one, since an account there would reach no
     * server: the usual cause is a command run from another folder than the server's.
     */
    private static int createAccount(Command.CreateAccount c, ServerConfig config, PrintStream out, PrintStream err)
            throws Exception {
        String pinned = c.rateLimitVersion();
        if (pinned != null) {
            String refusal = unknownRateLimitVersion(config, pinned, Clock.systemUTC());
            if (refusal != null) {
                err.println("retrysafe: " + refusal);
                return USAGE;
            }
        }
        ServerConfig oneOff = RetrysafeServer.forOneOffCommand(config);
        String where;
        if (config.database().embedded()) {
            Path folder = config.dataDir().toAbsolutePath().normalize();
            boolean throughServer = !oneOff.database().embedded();
            if (!throughServer && !RetrysafeServer.embeddedDatabaseExists(config) && !c.newDatabase()) {
                err.println("retrysafe: no embedded database in " + folder + " (no server has run on this folder):"
                        + " run create-account with the server's settings (the same RETRYSAFE_DATA_DIR or --config;"
                        + " the server's start banner shows its folder in the Demo key line), or add --new-database"
                        + " to make one here");
                return FAILURE;
            }
            where = "the embedded database in " + folder + (throughServer ? " (through the server running on it)" : "");
        } else {
            where = "the database " + config.database().describe(config.dataDir());
        }
        try (Database db = RetrysafeServer.openStorage(oneOff, "retrysafe-cli")) {
            Clock clock = Clock.systemUTC();
            AccountStore accounts = new AccountStore(new Transactions(db.dataSource()), new Ids(clock), clock);
            String key = ApiKeys.generate();
            Account account = accounts.create(c.name(), c.plan(), key, pinned);
            err.println("Created account " + account.id() + " '" + account.name() + "' on plan " + account.plan()
                    + (pinned == null ? "" : ", pinned to rate-limit version " + pinned)
                    + " in " + where + ". Its API key (shown only now):");
            out.println(key);
            return 0;
        }
    }

    /**
     * Why an account cannot be pinned to {@code version}, or {@code null} when it can: the version
     * must be a set of the configuration, and a previous set must not be past its sunset (the
     * account would be moved on at once).
     */
    static @Nullable String unknownRateLimitVersion(ServerConfig config, String version, Clock clock) {
        RateLimitVersions versions = config.rateLimits().versions();
        List<String> known = new ArrayList<>();
        if (versions.enabled()) {
            known.add(versions.version());
        }
        for (RateLimitVersions.Previous p : versions.previous()) {
            if (p.version().equals(version) && !p.sunset().isAfter(clock.instant())) {
                return "--rate-limit-version " + version + ": that set's sunset (" + p.sunset()
                        + ") has passed, so the account would be on " + versions.version() + " at once";
            }
            known.add(p.version());
        }
        if (known.contains(version)) {
            return null;
        }
        return "--rate-limit-version: unknown version '" + version + "' ("
                + (known.isEmpty()
                        ? "rate limits are not versioned: rate_limits.version is not set"
                        : "the configuration has " + String.join(", ", known))
                + ")";
    }

    private static int serve(Command command, Map<String, String> env, PrintStream out, PrintStream err) {
        ServerConfig config;
        try {
            config = ConfigLoader.load(command.config(), withPort(command, env));
        } catch (ConfigException e) {
            err.println("retrysafe: invalid configuration: " + e.getMessage());
            return USAGE;
        }
        RetrysafeServer server;
        try {
            server = RetrysafeServer.start(config, Clock.systemUTC(), out);
        } catch (DatabaseUnavailableException e) {
            err.println("retrysafe: cannot start: " + e.getMessage());
            return FAILURE;
        } catch (ConfigException e) {
            // found only once the database is open, such as a limit lowered without 90 days' notice
            err.println("retrysafe: invalid configuration: " + e.getMessage());
            return USAGE;
        } catch (Exception e) {
            err.println("retrysafe: cannot start: " + e);
            return FAILURE;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.close();
                            stopped.countDown();
                        },
                        "retrysafe-shutdown"));
        // SIGHUP reads --config (and the environment) again and applies its rate limits
        Map<String, String> startEnv = withPort(command, env);
        if (!Hangup.onSignal(() -> server.reload(command.config(), startEnv))) {
            err.println("retrysafe: SIGHUP is not available here: a configuration change needs a restart");
        }
        out.print(Banner.ready(server.port(), config));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** {@code env} with {@code PORT} set to {@code --port}, which wins over the variable and the file. */
    private static Map<String, String> withPort(Command command, Map<String, String> env) {
        if (!(command instanceof Command.Serve serve) || serve.port() == null) {
            return env;
        }
        Map<String, String> withPort = new HashMap<>(env);
        withPort.put("PORT", Integer.toString(serve.port()));
        return withPort;
    }
}

package dev.retrysafe.server.cli;

import dev.retrysafe.server.accounts.Plan;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Parses the arguments of {@code ./run} into a {@link Command}. */
public final class CommandLine {

    /** The help text: the commands in the order of a first hour, then the options. */
    public static final String USAGE = """
            Usage: ./run [COMMAND] [OPTIONS]
                   java -jar server/target/retrysafe-server.jar [COMMAND] [OPTIONS]

            Commands (serve is the default):
              serve [--port N]           Start the server; stops gracefully on SIGTERM/Ctrl-C. Its start
                                         page http://localhost:8080/ links the dashboard, the API docs
                                         and the demo account's key.
              create-account --name NAME [--plan PLAN] [--rate-limit-version V] [--new-database]
                                         Create an account and print its new API key (shown once); says
                                         which database it wrote to. PLAN is free (default), pro or
                                         enterprise. V pins the account to a rate-limit policy set of
                                         the configuration (rate_limits.version or a previous[] one)
                                         until that set's sunset. Uses the server's settings (--config,
                                         RETRYSAFE_*), and works while a server runs on the same data.
                                         With the embedded database it refuses a data folder that holds
                                         none yet, unless --new-database.
              migrate                    Apply pending database migrations and exit.
              cluster start|status|stop [--instances N] [--port P] [--dir DIR] ...
                                         N instances behind nginx on PostgreSQL and Redis (./run only,
                                         not the jar; ./run cluster --help lists its options).
              webhooks sign --secret S --id I --timestamp T
                                         Print the webhook-signature of the body read from standard
                                         input (its exact bytes: use printf '%s', not echo). Repeat
                                         --secret to sign with several secrets, as during a rotation.
              webhooks verify --secret S --id I --timestamp T --signature V [--now T | --no-tolerance]
                                         Verify the body on standard input like a receiver: prints ok
                                         (exit 0) or the reason it was rejected (exit 1). The timestamp
                                         must be within 5 minutes of now, or of --now T (seconds since
                                         the epoch); --no-tolerance checks only the signature, to debug
                                         an old message. Repeat --secret for a receiver that rotates.
              webhooks listen --secret S [--port P]
                                         Receive webhooks on http://127.0.0.1:P/ (default 9000) until
                                         stopped: verifies each POST, skips a webhook-id seen before,
                                         prints one line per request (<id> verified: <body>, <id>
                                         duplicate, <id> rejected: <REASON>). Register it with a server
                                         that allows private targets (see docs/getting-started.md).
              demo retry                 The retrying client against a local server answering 503
                                         (Retry-After: 1), 500, 429 (Retry-After: 0), then 200; then one
                                         answering 400. Prints every attempt, status, wait and outcome.
              demo lost-answer [--url URL --api-key K] [--timeout MS]
                                         A payment whose answer is lost: the client's timeout is below
                                         the bank's latency, so it retries with one generated key; shows
                                         one payment and the same id on every answer. Without --url it
                                         starts an embedded server (bank latency 500 ms, timeout 200 ms);
                                         with --url the timeout defaults to 50 ms (the server's bank takes
                                         100 ms unless RETRYSAFE_BANK_LATENCY_MS says otherwise).

            Options:
              --config FILE              YAML configuration; every setting and its default is documented
                                         in retrysafe-defaults.yaml and docs/configuration.md.
              --port N                   The port serve listens on, 0 for a free one (wins over PORT and
                                         the file; default 8080).
              --version                  Print the version and exit.
              -h, --help                 Show this help.

            Environment (overrides the file):
              PORT, RETRYSAFE_HOST, RETRYSAFE_DATA_DIR, RETRYSAFE_DATABASE_URL, RETRYSAFE_DATABASE_USER,
              RETRYSAFE_DATABASE_PASSWORD, RETRYSAFE_REDIS_URL, RETRYSAFE_REDIS_KEY_PREFIX,
              RETRYSAFE_BANK_LATENCY_MS, RETRYSAFE_BOOTSTRAP_API_KEYS, RETRYSAFE_TRUSTED_PROXIES

            Exit codes: 0 success, 1 failure (e.g. database unreachable, a webhook rejected), 2 bad command
            line or configuration.
            """;

    /** The commands of the jar, in the order of the help. */
    private static final List<String> COMMANDS = List.of("serve", "create-account", "migrate", "webhooks", "demo");
    /** Options that take a value, to the command they apply to ({@code --config}: to every command). */
    private static final Map<String, String> VALUE_OPTIONS = Map.of(
            "--config",
            "",
            "--port",
            "serve",
            "--name",
            "create-account",
            "--plan",
            "create-account",
            "--rate-limit-version",
            "create-account");
    /** Options without a value, to the command they apply to. */
    private static final Map<String, String> FLAGS = Map.of("--new-database", "create-account");

    private static final int MAX_PORT = 65_535;

    private CommandLine() {}

    /** Parses {@code args}; never throws. */
    public static Command parse(String[] args) {
        String command = null;
        Path config = null;
        Map<String, String> options = new LinkedHashMap<>();
        List<String> list = new ArrayList<>(List.of(args));
        for (int i = 0; i < list.size(); i++) {
            String arg = list.get(i);
            if (arg.equals("-h") || arg.equals("--help") || arg.equals("help")) {
                return new Command.Help();
            }
            if (arg.equals("--version")) {
                return new Command.Version();
            }
            if (arg.startsWith("-")) {
                String name = arg;
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    name = arg.substring(0, eq);
                    value = arg.substring(eq + 1);
                }
                if (FLAGS.containsKey(name)) {
                    if (value != null) {
                        return new Command.Invalid("option " + name + " takes no value");
                    }
                    options.put(name, "true");
                    continue;
                }
                if (!VALUE_OPTIONS.containsKey(name)) {
                    return new Command.Invalid("unknown option '" + name + "'");
                }
                if (value == null) {
                    if (i + 1 >= list.size() || list.get(i + 1).startsWith("--")) {
                        return new Command.Invalid("option " + name + " needs a value");
                    }
                    value = list.get(++i);
                }
                if (name.equals("--config")) {
                    config = Path.of(value);
                } else {
                    options.put(name, value);
                }
            } else if (command == null) {
                if (arg.equals("cluster")) {
                    return new Command.Invalid("cluster is a command of ./run (scripts/cluster.sh), not of the jar:"
                            + " run ./run cluster --help");
                }
                if (!COMMANDS.contains(arg)) {
                    return new Command.Invalid(
                            "unknown command '" + arg + "' (commands: " + String.join(", ", COMMANDS) + ")");
                }
                if (arg.equals("demo")) {
                    return options.isEmpty() && config == null
                            ? DemoCommandLine.parse(list.subList(i + 1, list.size()))
                            : new Command.Invalid("demo takes no --config or create-account options");
                }
                if (arg.equals("webhooks")) {
                    // its own options, some repeatable: parsed apart from the server's
                    return options.isEmpty()
                            ? WebhookCommandLine.parse(list.subList(i + 1, list.size()))
                            : notFor(options.keySet().iterator().next());
                }
                command = arg;
            } else {
                return new Command.Invalid("unexpected argument '" + arg + "'");
            }
        }
        if (command == null) {
            command = "serve";
        }
        for (String option : options.keySet()) {
            if (!command.equals(appliesTo(option))) {
                return notFor(option);
            }
        }
        return switch (command) {
            case "migrate" -> new Command.Migrate(config);
            case "create-account" -> createAccount(config, options);
            default -> serve(config, options.get("--port"));
        };
    }

    private static String appliesTo(String option) {
        return FLAGS.containsKey(option) ? FLAGS.get(option) : VALUE_OPTIONS.get(option);
    }

    private static Command notFor(String option) {
        return new Command.Invalid("option " + option + " only applies to " + appliesTo(option));
    }

    private static Command serve(@Nullable Path config, @Nullable String port) {
        if (port == null) {
            return new Command.Serve(config, null);
        }
        try {
            int n = Integer.parseInt(port.strip());
            if (n >= 0 && n <= MAX_PORT) {
                return new Command.Serve(config, n);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        return new Command.Invalid("--port must be a whole number from 0 to " + MAX_PORT + ", was '" + port + "'");
    }

    private static Command createAccount(@Nullable Path config, Map<String, String> options) {
        String name = options.get("--name");
        if (name == null || name.isBlank()) {
            return new Command.Invalid("create-account needs --name NAME");
        }
        if (name.length() > 200) {
            return new Command.Invalid("--name must be at most 200 characters, was " + name.length());
        }
        String plan = options.getOrDefault("--plan", "free");
        if (!Plan.exists(plan)) {
            return new Command.Invalid("--plan must be one of " + String.join(", ", Plan.ALL) + ", was '" + plan + "'");
        }
        String version = options.get("--rate-limit-version");
        if (version != null && !version.strip().matches("[A-Za-z0-9_.-]{1,32}")) {
            return new Command.Invalid(
                    "--rate-limit-version must be a version name (letters, digits, _ . -, at most 32), was '" + version
                            + "'");
        }
        return new Command.CreateAccount(
                config,
                name.strip(),
                plan,
                options.containsKey("--new-database"),
                version == null ? null : version.strip());
    }
}

package dev.retrysafe.server.cli;

import dev.retrysafe.server.accounts.Plan;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Parses the arguments of {@code ./run} into a {@link Command}. */
public final class CommandLine {

    /** The help text. */
    public static final String USAGE = """
            Usage: ./run [--config FILE] [COMMAND] [OPTIONS]
                   java -jar retrysafe-server.jar [--config FILE] [COMMAND] [OPTIONS]

            Commands:
              serve                      Start the server (the default). Stops gracefully on SIGTERM/Ctrl-C.
              create-account --name NAME [--plan PLAN]
                                         Create an account and print its new API key (shown once).
                                         PLAN is free (default), pro or enterprise. Works while a
                                         server runs on the same data.
              migrate                    Apply pending database migrations and exit.
              webhooks sign --secret S --id I --timestamp T
                                         Print the webhook-signature of the body read from standard
                                         input (its exact bytes: use printf '%s', not echo). Repeat
                                         --secret to sign with several secrets, as during a rotation.
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

            Options:
              --config FILE              YAML configuration; every setting and its default is documented
                                         in retrysafe-defaults.yaml and docs/configuration.md.
              -h, --help                 Show this help.

            Environment (overrides the file):
              PORT, RETRYSAFE_HOST, RETRYSAFE_DATA_DIR, RETRYSAFE_DATABASE_URL, RETRYSAFE_DATABASE_USER,
              RETRYSAFE_DATABASE_PASSWORD, RETRYSAFE_REDIS_URL, RETRYSAFE_BANK_LATENCY_MS,
              RETRYSAFE_BOOTSTRAP_API_KEYS

            Exit codes: 0 success, 1 failure (e.g. database unreachable, a webhook rejected), 2 bad command
            line or configuration.
            """;

    private static final Set<String> COMMANDS = Set.of("serve", "create-account", "migrate", "webhooks", "demo");
    private static final Set<String> CREATE_ACCOUNT_OPTIONS = Set.of("--name", "--plan");

    private CommandLine() {}

    /** Parses {@code args}; never throws. */
    public static Command parse(String[] args) {
        String command = null;
        Path config = null;
        Map<String, String> options = new HashMap<>();
        List<String> list = new ArrayList<>(List.of(args));
        for (int i = 0; i < list.size(); i++) {
            String arg = list.get(i);
            if (arg.equals("-h") || arg.equals("--help") || arg.equals("help")) {
                return new Command.Help();
            }
            if (arg.startsWith("-")) {
                String name = arg;
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    name = arg.substring(0, eq);
                    value = arg.substring(eq + 1);
                }
                if (!name.equals("--config") && !CREATE_ACCOUNT_OPTIONS.contains(name)) {
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
                if (!COMMANDS.contains(arg)) {
                    return new Command.Invalid(
                            "unknown command '" + arg + "' (commands: serve, create-account, migrate, webhooks)");
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
                            : new Command.Invalid(
                                    "option " + options.keySet().iterator().next() + " only applies to create-account");
                }
                command = arg;
            } else {
                return new Command.Invalid("unexpected argument '" + arg + "'");
            }
        }
        if (command == null) {
            command = "serve";
        }
        if (!command.equals("create-account") && !options.isEmpty()) {
            return new Command.Invalid(
                    "option " + options.keySet().iterator().next() + " only applies to create-account");
        }
        return switch (command) {
            case "migrate" -> new Command.Migrate(config);
            case "create-account" -> createAccount(config, options);
            default -> new Command.Serve(config);
        };
    }

    private static Command createAccount(Path config, Map<String, String> options) {
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
        return new Command.CreateAccount(config, name.strip(), plan);
    }
}

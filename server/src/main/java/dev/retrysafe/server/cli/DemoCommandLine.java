package dev.retrysafe.server.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Parses the arguments after {@code demo}: {@code retry}, or {@code lost-answer} and its options. */
final class DemoCommandLine {

    private static final Set<String> LOST_ANSWER_OPTIONS = Set.of("--url", "--api-key", "--timeout");
    /** Longest attempt timeout the lost-answer demo takes, in milliseconds. */
    static final int MAX_TIMEOUT_MILLIS = 60_000;

    private DemoCommandLine() {}

    /** Parses {@code args} (what follows {@code demo}); never throws. */
    static Command parse(List<String> args) {
        if (args.isEmpty()
                || !(args.getFirst().equals("retry") || args.getFirst().equals("lost-answer"))) {
            return new Command.Invalid("demo needs a name: retry or lost-answer");
        }
        if (args.getFirst().equals("retry")) {
            return args.size() == 1
                    ? new Command.DemoRetry()
                    : new Command.Invalid("demo retry takes no options, got '" + args.get(1) + "'");
        }
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (!LOST_ANSWER_OPTIONS.contains(name)) {
                return new Command.Invalid(
                        arg.startsWith("-")
                                ? "unknown option '" + name + "' for demo lost-answer"
                                : "unexpected argument '" + arg + "'");
            }
            if (value == null) {
                if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
                    return new Command.Invalid("option " + name + " needs a value");
                }
                value = args.get(++i);
            }
            if (options.putIfAbsent(name, value) != null) {
                return new Command.Invalid("option " + name + " is given twice");
            }
        }
        URI url = null;
        if (options.containsKey("--url")) {
            try {
                url = new URI(options.get("--url"));
            } catch (URISyntaxException e) {
                return new Command.Invalid(
                        "--url must be a URL such as http://localhost:8080, was '" + options.get("--url") + "'");
            }
            if (!("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
                return new Command.Invalid("--url must be an http(s) URL such as http://localhost:8080, was '"
                        + options.get("--url") + "'");
            }
            if (!options.containsKey("--api-key")) {
                return new Command.Invalid(
                        "demo lost-answer --url needs --api-key KEY (./run create-account prints one)");
            }
        } else if (options.containsKey("--api-key")) {
            return new Command.Invalid("--api-key only applies with --url (the embedded server makes its own key)");
        }
        Integer timeout = null;
        if (options.containsKey("--timeout")) {
            String t = options.get("--timeout");
            if (!t.matches("\\d{1,5}") || Integer.parseInt(t) < 1 || Integer.parseInt(t) > MAX_TIMEOUT_MILLIS) {
                return new Command.Invalid(
                        "--timeout must be milliseconds from 1 to " + MAX_TIMEOUT_MILLIS + ", was '" + t + "'");
            }
            timeout = Integer.parseInt(t);
        }
        return new Command.DemoLostAnswer(url, options.get("--api-key"), timeout);
    }
}

package dev.retrysafe.server.cli;

import dev.retrysafe.webhooks.WebhookSecret;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Parses the arguments after {@code webhooks}: {@code sign}, {@code verify} or {@code listen} and
 * their options.
 * Secrets are parsed here, so that a malformed one is a bad command line (exit 2) with a message
 * that never repeats it.
 */
final class WebhookCommandLine {

    private static final Set<String> SIGN_OPTIONS = Set.of("--secret", "--id", "--timestamp");
    private static final Set<String> VERIFY_OPTIONS = Set.of("--secret", "--id", "--timestamp", "--signature", "--now");
    private static final Set<String> LISTEN_OPTIONS = Set.of("--secret", "--port");
    private static final String NO_TOLERANCE = "--no-tolerance";
    /** The port {@code listen} takes unless told otherwise. */
    static final int DEFAULT_LISTEN_PORT = 9000;

    private static final int MAX_PORT = 65535;

    private WebhookCommandLine() {}

    /** Parses {@code args} (what follows {@code webhooks}); never throws. */
    static Command parse(List<String> args) {
        String subcommand = args.isEmpty() ? "" : args.getFirst();
        Set<String> allowed = switch (subcommand) {
            case "sign" -> SIGN_OPTIONS;
            case "verify" -> VERIFY_OPTIONS;
            case "listen" -> LISTEN_OPTIONS;
            default -> Set.of();
        };
        if (allowed.isEmpty()) {
            return new Command.Invalid("webhooks needs a subcommand: sign, verify or listen");
        }
        boolean sign = subcommand.equals("sign");
        boolean verify = subcommand.equals("verify");
        List<String> secretTexts = new ArrayList<>();
        Map<String, String> options = new HashMap<>();
        boolean noTolerance = false;
        for (int i = 1; i < args.size(); i++) {
            String arg = args.get(i);
            if (verify && arg.equals(NO_TOLERANCE)) {
                noTolerance = true;
                continue;
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (!allowed.contains(name)) {
                return new Command.Invalid(
                        arg.startsWith("-")
                                ? "unknown option '" + name + "' for webhooks " + args.getFirst()
                                : "unexpected argument '" + arg + "'");
            }
            if (value == null) {
                // a signature may start with anything but "--"; values are taken as they are
                if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
                    return new Command.Invalid("option " + name + " needs a value");
                }
                value = args.get(++i);
            }
            if (name.equals("--secret")) {
                secretTexts.add(value);
            } else if (options.putIfAbsent(name, value) != null) {
                return new Command.Invalid("option " + name + " is given twice");
            }
        }
        if (secretTexts.isEmpty()) {
            return new Command.Invalid("webhooks " + args.getFirst() + " needs --secret whsec_...");
        }
        List<WebhookSecret> secrets = new ArrayList<>();
        for (String text : secretTexts) {
            try {
                secrets.add(WebhookSecret.parse(text));
            } catch (IllegalArgumentException e) {
                return new Command.Invalid("--secret: " + e.getMessage());
            }
        }
        if (subcommand.equals("listen")) {
            return listen(secrets, options.get("--port"));
        }
        for (String required : sign ? List.of("--id", "--timestamp") : List.of("--id", "--timestamp", "--signature")) {
            if (!options.containsKey(required)) {
                return new Command.Invalid("webhooks " + args.getFirst() + " needs " + required);
            }
        }
        if (sign) {
            Long timestamp = seconds(options.get("--timestamp"));
            if (timestamp == null) {
                return new Command.Invalid(
                        "--timestamp must be seconds since the epoch, was '" + options.get("--timestamp") + "'");
            }
            return new Command.WebhookSign(secrets, options.get("--id"), timestamp);
        }
        @Nullable Long now = null;
        if (options.containsKey("--now")) {
            if (noTolerance) {
                return new Command.Invalid("use either --now or --no-tolerance, not both");
            }
            now = seconds(options.get("--now"));
            if (now == null) {
                return new Command.Invalid("--now must be seconds since the epoch, was '" + options.get("--now") + "'");
            }
        }
        return new Command.WebhookVerify(
                secrets, options.get("--id"), options.get("--timestamp"), options.get("--signature"), now, noTolerance);
    }

    private static Command listen(List<WebhookSecret> secrets, @Nullable String portText) {
        if (portText == null) {
            return new Command.WebhookListen(secrets, DEFAULT_LISTEN_PORT);
        }
        if (portText.isEmpty()
                || portText.length() > 5
                || !portText.chars().allMatch(c -> c >= '0' && c <= '9')
                || Integer.parseInt(portText) > MAX_PORT) {
            return new Command.Invalid("--port must be 0 to " + MAX_PORT + ", was '" + portText + "'");
        }
        return new Command.WebhookListen(secrets, Integer.parseInt(portText));
    }

    /** Decimal seconds since the epoch (at most 18 digits), or null. */
    private static @Nullable Long seconds(String text) {
        if (text.isEmpty() || text.length() > 18 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return null;
        }
        return Long.parseLong(text);
    }
}

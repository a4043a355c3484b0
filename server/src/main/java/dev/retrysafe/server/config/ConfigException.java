package dev.retrysafe.server.config;

/**
 * An invalid setting. The message names the setting and the bad value, so that it can be shown
 * to the operator as is; the server does not start.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String setting;

    /** A problem with {@code setting} (dotted path as in the YAML file, e.g. {@code bank.latency}). */
    public ConfigException(String setting, String message) {
        super(message);
        this.setting = setting;
    }

    /** The dotted path of the setting at fault. */
    public String setting() {
        return setting;
    }

    static void check(boolean condition, String setting, String message) {
        if (!condition) {
            throw new ConfigException(setting, setting + " " + message);
        }
    }
}

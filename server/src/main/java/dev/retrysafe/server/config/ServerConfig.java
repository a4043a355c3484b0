package dev.retrysafe.server.config;

import dev.retrysafe.liveevents.LiveEventsConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Every setting of the server, immutable and checked. {@link ConfigLoader} builds it from the
 * defaults, a YAML file and the environment; tests may build it directly or with the {@code with*}
 * copies.
 *
 * @param host address to listen on ({@code 0.0.0.0} for every interface, {@code 127.0.0.1} for this machine only)
 * @param port HTTP port, 0 for any free port
 * @param dataDir folder of the embedded database and the demo key file
 * @param database where the data lives
 * @param redis the optional Redis server
 * @param bank the simulated bank
 * @param idempotency idempotency keys
 * @param rateLimits rate limits
 * @param webhooks webhook delivery
 * @param jobs asynchronous jobs (reports)
 * @param streams the live event stream
 * @param limits what one request may cost before the application sees it (body size and pace, requests in flight)
 * @param shutdownTimeout how long in-flight requests may finish after SIGTERM, 0..10m
 * @param bootstrapApiKeys keys that must exist at start, one account each
 */
public record ServerConfig(
        String host,
        int port,
        Path dataDir,
        DatabaseConfig database,
        RedisConfig redis,
        BankConfig bank,
        IdempotencyConfig idempotency,
        RateLimitConfig rateLimits,
        WebhooksConfig webhooks,
        JobsConfig jobs,
        LiveEventsConfig streams,
        LimitsConfig limits,
        Duration shutdownTimeout,
        List<String> bootstrapApiKeys) {

    /** What a bootstrap key may look like: long enough to be a secret, printable, no separators. */
    private static final Pattern BOOTSTRAP_KEY = Pattern.compile("[A-Za-z0-9_\\-.~]{16,200}");

    /** Checks every value and copies the list. */
    public ServerConfig {
        ConfigException.check(!host.isBlank(), "host", "must not be empty");
        ConfigException.check(port >= 0 && port <= 65535, "port", "must be between 0 and 65535, was " + port);
        ConfigException.check(
                !shutdownTimeout.isNegative() && shutdownTimeout.compareTo(Duration.ofMinutes(10)) <= 0,
                "shutdown.timeout",
                "must be between 0s and 10m, was " + Durations.format(shutdownTimeout));
        bootstrapApiKeys = List.copyOf(bootstrapApiKeys);
        for (String key : bootstrapApiKeys) {
            // never echo the key itself: it is a secret
            ConfigException.check(
                    BOOTSTRAP_KEY.matcher(key).matches(),
                    "bootstrap_api_keys",
                    "entries must be 16..200 characters of A-Z a-z 0-9 _ - . ~, one is not (length " + key.length()
                            + ")");
        }
    }

    /** The defaults of {@code retrysafe-defaults.yaml}, without any environment. */
    public static ServerConfig defaults() {
        return ConfigLoader.load(null, java.util.Map.of());
    }

    /** A copy listening on another address. */
    public ServerConfig withHost(String newHost) {
        return new ServerConfig(
                newHost,
                port,
                dataDir,
                database,
                redis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy on another port. */
    public ServerConfig withPort(int newPort) {
        return new ServerConfig(
                host,
                newPort,
                dataDir,
                database,
                redis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with another data folder. */
    public ServerConfig withDataDir(Path newDataDir) {
        return new ServerConfig(
                host,
                port,
                newDataDir,
                database,
                redis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with another database. */
    public ServerConfig withDatabase(DatabaseConfig newDatabase) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                newDatabase,
                redis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with another Redis. */
    public ServerConfig withRedis(RedisConfig newRedis) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                newRedis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with another bank. */
    public ServerConfig withBank(BankConfig newBank) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                redis,
                newBank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with other idempotency settings. */
    public ServerConfig withIdempotency(IdempotencyConfig newIdempotency) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                redis,
                bank,
                newIdempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with other rate limits. */
    public ServerConfig withRateLimits(RateLimitConfig newRateLimits) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                redis,
                bank,
                idempotency,
                newRateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with other webhook settings. */
    public ServerConfig withWebhooks(WebhooksConfig newWebhooks) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                redis,
                bank,
                idempotency,
                rateLimits,
                newWebhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with other job settings. */
    public ServerConfig withJobs(JobsConfig newJobs) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                redis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                newJobs,
                streams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with other live stream settings. */
    public ServerConfig withStreams(LiveEventsConfig newStreams) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                redis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                newStreams,
                limits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** A copy with another body limit. */
    public ServerConfig withMaxBodyBytes(int newMaxBodyBytes) {
        return withLimits(limits.withMaxBodyBytes(newMaxBodyBytes));
    }

    /** A copy with other request limits. */
    public ServerConfig withLimits(LimitsConfig newLimits) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                redis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                newLimits,
                shutdownTimeout,
                bootstrapApiKeys);
    }

    /** The largest request body ({@code limits.max_body_bytes}). */
    public int maxBodyBytes() {
        return limits.maxBodyBytes();
    }

    /** A copy with another shutdown timeout. */
    public ServerConfig withShutdownTimeout(Duration newTimeout) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                redis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                newTimeout,
                bootstrapApiKeys);
    }

    /** A copy with other bootstrap keys. */
    public ServerConfig withBootstrapApiKeys(List<String> keys) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                database,
                redis,
                bank,
                idempotency,
                rateLimits,
                webhooks,
                jobs,
                streams,
                limits,
                shutdownTimeout,
                keys);
    }
}

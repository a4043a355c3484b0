package dev.retrysafe.server.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.retrysafe.liveevents.LiveEventsConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link ServerConfig} in three layers: the documented defaults
 * ({@code retrysafe-defaults.yaml}, so the sample file and the real defaults cannot drift), then
 * an optional YAML file, then environment variables. Unknown keys and bad values throw a
 * {@link ConfigException} naming the setting (and the variable, when one set it).
 */
public final class ConfigLoader {

    /** The classpath resource holding every setting and its default. */
    public static final String DEFAULTS_RESOURCE = "/retrysafe-defaults.yaml";

    /** Environment variable to the setting it overrides. */
    private static final Map<String, String> ENV_SETTINGS = Map.ofEntries(
            Map.entry("PORT", "port"),
            Map.entry("RETRYSAFE_HOST", "host"),
            Map.entry("RETRYSAFE_DATA_DIR", "data_dir"),
            Map.entry("RETRYSAFE_DATABASE_URL", "database.url"),
            Map.entry("RETRYSAFE_DATABASE_USER", "database.user"),
            Map.entry("RETRYSAFE_DATABASE_PASSWORD", "database.password"),
            Map.entry("RETRYSAFE_REDIS_URL", "redis.url"),
            Map.entry("RETRYSAFE_REDIS_KEY_PREFIX", "rate_limits.redis_key_prefix"),
            Map.entry("RETRYSAFE_BANK_LATENCY_MS", "bank.latency"),
            Map.entry("RETRYSAFE_BOOTSTRAP_API_KEYS", "bootstrap_api_keys"),
            Map.entry("RETRYSAFE_TRUSTED_PROXIES", "rate_limits.trusted_proxies"));

    private static final ObjectMapper YAML = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private ConfigLoader() {}

    /**
     * The configuration from {@code file} (or only the defaults when {@code null}) with the
     * overrides in {@code env} (usually {@link System#getenv()}).
     */
    public static ServerConfig load(@Nullable Path file, Map<String, String> env) {
        ObjectNode tree = defaults();
        if (file != null) {
            merge(tree, readFile(file), "");
        }
        Map<String, String> setBy = new HashMap<>();
        applyEnv(tree, env, setBy);
        try {
            return build(new Settings(tree));
        } catch (ConfigException e) {
            String variable = setBy.get(e.setting());
            throw variable == null
                    ? e
                    : new ConfigException(e.setting(), e.getMessage() + " (set by " + variable + ")");
        }
    }

    private static ServerConfig build(Settings s) {
        String url = s.text("database.url");
        String user = s.text("database.user");
        String password = s.text("database.password");
        String jdbcUrl = null;
        if (!url.isBlank()) {
            DatabaseUrls.Parsed parsed = DatabaseUrls.parse("database.url", url.trim());
            jdbcUrl = parsed.jdbcUrl();
            // credentials written out in their own settings win over those inside the URL
            user = user.isEmpty() && parsed.user() != null ? parsed.user() : user;
            password = password.isEmpty() && parsed.password() != null ? parsed.password() : password;
        }
        String redis = s.text("redis.url");
        return new ServerConfig(
                s.nonBlank("host"),
                s.integer("port"),
                Path.of(s.nonBlank("data_dir")),
                new DatabaseConfig(
                        jdbcUrl,
                        user,
                        password,
                        s.text("database.pool_size").isBlank()
                                ? DatabaseConfig.defaultPoolSize(jdbcUrl)
                                : s.integer("database.pool_size")),
                new RedisConfig(redis.isBlank() ? null : uri("redis.url", redis.trim())),
                new BankConfig(
                        s.duration("bank.latency"), s.decimal("bank.decline_rate"), s.decimal("bank.error_rate")),
                new IdempotencyConfig(
                        s.bool("idempotency.enabled"),
                        s.duration("idempotency.lease"),
                        s.duration("idempotency.retention"),
                        s.duration("idempotency.purge_interval"),
                        claims(s)),
                rateLimits(s, redis),
                webhooks(s),
                jobs(s),
                streams(s),
                new LimitsConfig(
                        s.integer("limits.max_body_bytes"),
                        s.duration("limits.body_timeout"),
                        s.integer("limits.min_body_rate"),
                        s.duration("limits.min_body_rate_grace"),
                        s.longInteger("limits.max_buffered_body_bytes"),
                        s.integer("limits.max_in_flight_per_key"),
                        s.integer("limits.max_in_flight_per_address"),
                        shedding(s)),
                s.duration("shutdown.timeout"),
                s.list("bootstrap_api_keys"));
    }

    private static SheddingConfig shedding(Settings s) {
        Map<String, dev.retrysafe.servlet.LoadShedder.Priority> priorities = new java.util.LinkedHashMap<>();
        for (Iterator<String> it = s.node("rate_limits.shedding.priorities").fieldNames(); it.hasNext(); ) {
            String group = it.next();
            String setting = "rate_limits.shedding.priorities." + group;
            priorities.put(group, SheddingConfig.priority(setting, s.text(setting)));
        }
        return new SheddingConfig(
                s.bool("rate_limits.shedding.enabled"),
                s.integer("rate_limits.shedding.low_at"),
                s.integer("rate_limits.shedding.normal_at"),
                s.duration("rate_limits.shedding.retry_after"),
                priorities);
    }

    private static IdempotencyConfig.Claims claims(Settings s) {
        return switch (s.text("idempotency.claims").trim()) {
            case "auto", "" -> IdempotencyConfig.Claims.AUTO;
            case "locks" -> IdempotencyConfig.Claims.LOCKS;
            case "rows" -> IdempotencyConfig.Claims.ROWS;
            default ->
                throw new ConfigException(
                        "idempotency.claims",
                        "idempotency.claims must be auto, locks or rows," + " was '" + s.text("idempotency.claims")
                                + "'");
        };
    }

    private static RateLimitConfig rateLimits(Settings s, String redisUrl) {
        RateLimitConfig.Store store = switch (s.text("rate_limits.store").trim()) {
            case "auto", "" -> RateLimitConfig.Store.AUTO;
            case "memory" -> RateLimitConfig.Store.MEMORY;
            case "redis" -> RateLimitConfig.Store.REDIS;
            default ->
                throw new ConfigException(
                        "rate_limits.store",
                        "rate_limits.store must be auto, memory or redis," + " was '" + s.text("rate_limits.store")
                                + "'");
        };
        if (store == RateLimitConfig.Store.REDIS && redisUrl.isBlank()) {
            throw new ConfigException(
                    "rate_limits.store",
                    "rate_limits.store is redis but redis.url is not set" + " (RETRYSAFE_REDIS_URL)");
        }
        Map<String, Double> plans = new java.util.LinkedHashMap<>();
        for (Iterator<String> it = s.node("rate_limits.plans").fieldNames(); it.hasNext(); ) {
            String plan = it.next();
            plans.put(plan, s.decimal("rate_limits.plans." + plan));
        }
        return new RateLimitConfig(
                s.bool("rate_limits.enabled"),
                store,
                RateLimitPolicies.parse(s.node("rate_limits.policies")),
                plans,
                s.duration("rate_limits.retry_after_jitter"),
                s.duration("rate_limits.redis_timeout"),
                s.nonBlank("rate_limits.redis_key_prefix"),
                s.bool("rate_limits.redis_direct_connection"),
                s.list("rate_limits.trusted_proxies"),
                RateLimitVersions.parse(s.node("rate_limits")),
                s.integer("rate_limits.fallback_instances"),
                RateLimitPolicies.concurrency(s.node("rate_limits.policies")));
    }

    private static WebhooksConfig webhooks(Settings s) {
        List<Duration> schedule = new ArrayList<>();
        for (String entry : s.list("webhooks.retry_schedule")) {
            schedule.add(Durations.parse("webhooks.retry_schedule", entry));
        }
        return new WebhooksConfig(
                s.duration("webhooks.timeout"),
                schedule,
                s.decimal("webhooks.jitter"),
                s.duration("webhooks.disable_after"),
                s.integer("webhooks.max_in_flight_per_endpoint"),
                s.list("webhooks.allow_private_targets"),
                s.bool("webhooks.require_https"),
                s.duration("webhooks.retention"));
    }

    private static JobsConfig jobs(Settings s) {
        return new JobsConfig(
                s.integer("jobs.workers"),
                s.duration("jobs.lease"),
                s.integer("jobs.max_attempts"),
                s.duration("jobs.result_retention"),
                s.duration("jobs.report_min_duration"));
    }

    /** Every environment variable the loader reads, to the setting it overrides. */
    public static Map<String, String> environmentVariables() {
        return ENV_SETTINGS;
    }

    /**
     * The {@code streams} section as the live-events module's own settings; a value outside the
     * module's bounds is named by its setting, in the file's units.
     */
    private static LiveEventsConfig streams(Settings s) {
        try {
            return streamsUnchecked(s);
        } catch (LiveEventsConfig.OutOfRange e) {
            String setting =
                    "streams." + e.parameter().replaceAll("([A-Z])", "_$1").toLowerCase(Locale.ROOT);
            throw new ConfigException(
                    setting,
                    setting + " must be between " + inFileUnits(e.min()) + " and " + inFileUnits(e.max()) + ", was "
                            + inFileUnits(e.value()));
        }
    }

    private static String inFileUnits(Object bound) {
        return bound instanceof Duration d ? Durations.format(d) : bound.toString();
    }

    private static LiveEventsConfig streamsUnchecked(Settings s) {
        return new LiveEventsConfig(
                s.integer("streams.max_connections_per_account"),
                s.integer("streams.message_limit"),
                s.duration("streams.message_window"),
                s.integer("streams.flood_close_after"),
                s.integer("streams.max_message_bytes"),
                s.integer("streams.buffer_messages"),
                s.integer("streams.buffer_bytes"),
                s.duration("streams.ping_interval"),
                s.duration("streams.pong_timeout"),
                s.duration("streams.auth_timeout"),
                s.integer("streams.max_replay"),
                s.duration("streams.poll_interval"),
                s.duration("streams.connection_lease"));
    }

    private static ObjectNode defaults() {
        try (InputStream in = ConfigLoader.class.getResourceAsStream(DEFAULTS_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(DEFAULTS_RESOURCE + " is missing from the class path");
            }
            return (ObjectNode) YAML.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode readFile(Path file) {
        try {
            JsonNode node = YAML.readTree(Files.readString(file));
            if (node == null || node.isMissingNode() || node.isNull()) {
                return YAML.createObjectNode(); // an empty file keeps every default
            }
            if (!node.isObject()) {
                throw new ConfigException(
                        "--config",
                        "configuration file " + file + " must hold a mapping of settings, found a "
                                + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
            }
            return node;
        } catch (NoSuchFileException e) {
            throw new ConfigException("--config", "configuration file " + file + " does not exist");
        } catch (JsonProcessingException e) {
            throw new ConfigException(
                    "--config",
                    "configuration file " + file + " is not valid YAML: " + e.getOriginalMessage() + " (line "
                            + e.getLocation().getLineNr() + ")");
        } catch (IOException e) {
            throw new ConfigException("--config", "configuration file " + file + " cannot be read: " + e);
        }
    }

    private static void merge(ObjectNode target, JsonNode source, String prefix) {
        for (Iterator<Map.Entry<String, JsonNode>> it = source.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = prefix + e.getKey();
            JsonNode current = target.get(e.getKey());
            if (current == null) {
                throw new ConfigException(
                        path, "unknown setting '" + path + "' (see retrysafe-defaults.yaml for every setting)");
            }
            if (current.isObject()) {
                if (!e.getValue().isObject()) {
                    throw new ConfigException(
                            path, path + " must be a mapping of settings, was '" + e.getValue() + "'");
                }
                merge((ObjectNode) current, e.getValue(), path + ".");
            } else if (e.getValue().isObject()) {
                throw new ConfigException(path, path + " must be a single value, was a mapping");
            } else {
                target.set(e.getKey(), e.getValue());
            }
        }
    }

    private static void applyEnv(ObjectNode tree, Map<String, String> env, Map<String, String> setBy) {
        for (Map.Entry<String, String> e : ENV_SETTINGS.entrySet()) {
            String value = env.get(e.getKey());
            if (value == null || value.isEmpty()) {
                continue;
            }
            String setting = e.getValue();
            if (setting.equals("bank.latency")) {
                value = millis(e.getKey(), value) + "ms";
            }
            String[] path = setting.split("\\.");
            ObjectNode parent = tree;
            for (int i = 0; i < path.length - 1; i++) {
                parent = (ObjectNode) parent.get(path[i]);
            }
            parent.set(path[path.length - 1], TextNode.valueOf(value));
            setBy.put(setting, e.getKey());
        }
    }

    private static long millis(String variable, String value) {
        try {
            long ms = Long.parseLong(value.trim());
            if (ms >= 0) {
                return ms;
            }
        } catch (NumberFormatException e) {
            // reported below, with the variable's name
        }
        throw new ConfigException(
                "bank.latency", variable + " must be a whole number of milliseconds >= 0, was '" + value + "'");
    }

    private static URI uri(String setting, String text) {
        try {
            return new URI(text);
        } catch (URISyntaxException e) {
            throw new ConfigException(setting, setting + " is not a valid URL (" + e.getReason() + ")");
        }
    }

    /** Typed reads from the merged tree; every failure names the setting. */
    private record Settings(ObjectNode tree) {

        JsonNode node(String setting) {
            JsonNode n = tree;
            for (String part : setting.split("\\.")) {
                n = n.path(part);
            }
            return n;
        }

        String text(String setting) {
            JsonNode n = node(setting);
            if (n.isNull()) {
                return "";
            }
            if (!n.isValueNode()) {
                throw new ConfigException(setting, setting + " must be a single value, was '" + n + "'");
            }
            return n.asText();
        }

        String nonBlank(String setting) {
            String t = text(setting);
            if (t.isBlank()) {
                throw new ConfigException(setting, setting + " must not be empty");
            }
            return t.trim();
        }

        int integer(String setting) {
            long value = longInteger(setting);
            if (value != (int) value) {
                throw new ConfigException(
                        setting,
                        setting + " must be a whole number from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE
                                + ", was " + value);
            }
            return (int) value;
        }

        long longInteger(String setting) {
            JsonNode n = node(setting);
            if (n.isIntegralNumber() && n.canConvertToLong()) {
                return n.longValue();
            }
            if (n.isTextual()) {
                try {
                    return Long.parseLong(n.asText().trim());
                } catch (NumberFormatException e) {
                    // reported below
                }
            }
            throw new ConfigException(setting, setting + " must be a whole number, was '" + n.asText() + "'");
        }

        double decimal(String setting) {
            JsonNode n = node(setting);
            if (n.isNumber()) {
                return n.doubleValue();
            }
            if (n.isTextual()) {
                try {
                    return Double.parseDouble(n.asText().trim());
                } catch (NumberFormatException e) {
                    // reported below
                }
            }
            throw new ConfigException(setting, setting + " must be a number, was '" + n.asText() + "'");
        }

        boolean bool(String setting) {
            JsonNode n = node(setting);
            if (n.isBoolean()) {
                return n.booleanValue();
            }
            String t = n.asText().trim();
            if (t.equals("true") || t.equals("false")) {
                return Boolean.parseBoolean(t);
            }
            throw new ConfigException(setting, setting + " must be true or false, was '" + t + "'");
        }

        Duration duration(String setting) {
            return Durations.parse(setting, text(setting));
        }

        List<String> list(String setting) {
            JsonNode n = node(setting);
            List<String> out = new ArrayList<>();
            if (n.isArray()) {
                for (JsonNode item : n) {
                    if (!item.isValueNode() || item.isNull()) {
                        throw new ConfigException(setting, setting + " must be a list of strings");
                    }
                    out.add(item.asText().trim());
                }
            } else if (n.isTextual()) {
                for (String part : n.asText().split(",")) {
                    if (!part.isBlank()) {
                        out.add(part.trim());
                    }
                }
            } else if (!n.isNull()) {
                throw new ConfigException(setting, setting + " must be a list of strings");
            }
            return out;
        }
    }
}

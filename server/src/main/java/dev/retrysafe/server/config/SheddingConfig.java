package dev.retrysafe.server.config;

import dev.retrysafe.servlet.LoadShedder;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Load shedding ({@code rate_limits.shedding} in the YAML file, beside the limits that refuse a
 * client; this refuses work the instance itself cannot do in time, "429 for you, 503 for us").
 * The load is the number of requests waiting for a database connection.
 *
 * @param enabled    {@code false}: nothing is shed
 * @param lowAt      waiting requests from which {@code low} routes are shed; 0: the pool's size
 * @param normalAt   waiting requests from which {@code normal} routes are shed too; 0: four times
 *                   the pool's size (and never below {@code lowAt})
 * @param retryAfter {@code Retry-After} of a shed request, whole seconds, 1s..1h
 * @param priorities route group (the first path segment after {@code /v1/}) to its priority;
 *                   {@code critical} routes are never shed
 */
public record SheddingConfig(
        boolean enabled, int lowAt, int normalAt, Duration retryAfter, Map<String, LoadShedder.Priority> priorities) {

    /** The route groups of the server's API, as {@code rate_limits.shedding.priorities} names them. */
    public static final List<String> ROUTE_GROUPS = List.of(
            "payments",
            "refunds",
            "reports",
            "jobs",
            "events",
            "webhook_endpoints",
            "deliveries",
            "webhook_attempt_stats");

    /** Checks every value and copies the map. */
    public SheddingConfig {
        ConfigException.check(
                lowAt >= 0 && lowAt <= 1_000_000,
                "rate_limits.shedding.low_at",
                "must be between 0 (the pool size) and 1000000, was " + lowAt);
        ConfigException.check(
                normalAt >= 0 && normalAt <= 1_000_000,
                "rate_limits.shedding.normal_at",
                "must be between 0 (four times the pool size) and 1000000, was " + normalAt);
        ConfigException.check(
                lowAt == 0 || normalAt == 0 || lowAt <= normalAt,
                "rate_limits.shedding.normal_at",
                "must not be below rate_limits.shedding.low_at (" + lowAt + "), was " + normalAt);
        ConfigException.check(
                retryAfter.compareTo(Duration.ofSeconds(1)) >= 0
                        && retryAfter.compareTo(Duration.ofHours(1)) <= 0
                        && retryAfter.toNanosPart() == 0,
                "rate_limits.shedding.retry_after",
                "must be whole seconds between 1s and 1h (Retry-After counts seconds), was "
                        + Durations.format(retryAfter));
        for (String group : priorities.keySet()) {
            ConfigException.check(
                    ROUTE_GROUPS.contains(group),
                    "rate_limits.shedding.priorities." + group,
                    "unknown route group '" + group + "'; the route groups are " + ROUTE_GROUPS);
        }
        priorities = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(priorities));
    }

    /** The priority named {@code value} at {@code setting}: {@code critical}, {@code normal} or {@code low}. */
    static LoadShedder.Priority priority(String setting, String value) {
        for (LoadShedder.Priority p : LoadShedder.Priority.values()) {
            if (p.wireName().equals(value.trim())) {
                return p;
            }
        }
        throw new ConfigException(setting, setting + " must be critical, normal or low, was '" + value + "'");
    }

    /** The load from which {@code low} routes are shed, for a pool of {@code poolSize} connections. */
    public int lowAt(int poolSize) {
        return lowAt == 0 ? Math.max(1, poolSize) : lowAt;
    }

    /** The load from which {@code normal} routes are shed too, for a pool of {@code poolSize}. */
    public int normalAt(int poolSize) {
        return normalAt == 0 ? Math.max(lowAt(poolSize), 4 * Math.max(1, poolSize)) : normalAt;
    }

    /** The same settings with other bounds (tests). */
    public SheddingConfig withBounds(int newLowAt, int newNormalAt) {
        return new SheddingConfig(enabled, newLowAt, newNormalAt, retryAfter, priorities);
    }
}

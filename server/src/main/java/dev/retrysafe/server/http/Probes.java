package dev.retrysafe.server.http;

import dev.retrysafe.server.config.RedisConfig;
import dev.retrysafe.server.db.Database;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code GET /health}: the process is alive (touches nothing else, so a slow database never
 * gets a live server restarted). {@code GET /ready}: the database, and Redis when configured,
 * answer; otherwise {@code 503}, so a load balancer sends traffic elsewhere.
 */
public final class Probes {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final Database database;
    private final RedisConfig redis;

    /** Probes of {@code database} and {@code redis}. */
    public Probes(Database database, RedisConfig redis) {
        this.database = database;
        this.redis = redis;
    }

    /** The handler of {@code GET /health}. */
    public void health(Context ctx) {
        ctx.contentType(Json.CONTENT_TYPE);
        ctx.result(Json.bytes(Map.of("status", "ok")));
    }

    /** The handler of {@code GET /ready}. */
    public void ready(Context ctx) {
        Map<String, String> checks = new LinkedHashMap<>();
        checks.put("database", database.reachable(TIMEOUT) ? "ok" : "unreachable");
        if (redis.url() != null) {
            checks.put("redis", RedisPing.ping(redis.url(), redis.port(), TIMEOUT) ? "ok" : "unreachable");
        }
        if (checks.containsValue("unreachable")) {
            Problems.respond(ctx, Problem.of(ProblemType.SERVICE_UNAVAILABLE, "Not ready: " + checks + ".")
                    .with("checks", checks).with("retryable", true).withHeader("Retry-After", "1"));
            return;
        }
        ctx.contentType(Json.CONTENT_TYPE);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "ready");
        body.put("checks", checks);
        ctx.result(Json.bytes(body));
    }
}

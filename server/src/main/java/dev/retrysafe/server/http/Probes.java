package dev.retrysafe.server.http;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.server.config.RedisConfig;
import dev.retrysafe.server.db.Database;
import io.javalin.http.Context;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /health}: the process is alive (touches nothing else, so a slow database never
 * gets a live server restarted). {@code GET /ready}: {@code 503} while the database does not
 * answer, so a load balancer sends traffic elsewhere. Redis, when configured, is checked and
 * reported (a Redis Cluster as "ok" when one of its seed nodes says that every slot is served)
 * but does not make an instance unready: it holds only rate-limit counters, whose
 * policies fail open or closed by configuration, and every instance shares it, so taking
 * instances out for it would turn a Redis outage into a total one ({@code "status":"degraded"}).
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
            checks.put("redis", redisAnswers() ? "ok" : "unreachable");
        }
        if (checks.get("database").equals("unreachable")) {
            Problems.respond(
                    ctx,
                    Problem.of(ProblemType.SERVICE_UNAVAILABLE, "Not ready: " + checks + ".")
                            .with("checks", checks)
                            .with("retryable", true)
                            .withHeader("Retry-After", "1"));
            return;
        }
        ctx.contentType(Json.CONTENT_TYPE);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", checks.containsValue("unreachable") ? "degraded" : "ready");
        body.put("checks", checks);
        ctx.result(Json.bytes(body));
    }

    /**
     * Whether Redis answers: the one server, or a seed of a Cluster, all within {@link #TIMEOUT};
     * {@code false} when none is configured.
     */
    public boolean redisAnswers() {
        URI url = redis.url();
        if (url == null) {
            return false;
        }
        if (!redis.cluster()) {
            return RedisPing.ping(url, redis.port(), TIMEOUT);
        }
        long deadline = MonotonicClock.nanoTime() + TIMEOUT.toNanos();
        List<URI> nodes = redis.nodes();
        for (int i = 0; i < nodes.size(); i++) {
            // each seed gets its share of what is left, so that one that never answers (a lost
            // host, not a refused connection) leaves time to ask the others
            Duration share = Duration.ofNanos((deadline - MonotonicClock.nanoTime()) / (nodes.size() - i));
            if (share.isNegative() || share.isZero()) {
                return false;
            }
            if (RedisPing.clusterServing(nodes.get(i), share)) {
                return true;
            }
        }
        return false;
    }
}

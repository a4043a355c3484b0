package dev.retrysafe.server.http;

import dev.retrysafe.server.config.LimitsConfig;
import dev.retrysafe.server.config.SheddingConfig;
import dev.retrysafe.servlet.InFlightLimitFilter;
import dev.retrysafe.servlet.LoadShedder;
import dev.retrysafe.servlet.RequestBodyFilter;
import jakarta.servlet.http.HttpServletRequest;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What a request may cost before the application sees it ({@code limits}): the load shedder, the
 * in-flight bounds per API key and per address, and the body filter (size, deadline, rate,
 * memory), with their figures for {@code GET /metrics}. Threadsafe.
 */
public final class RequestLimits implements Supplier<String> {

    private final InFlightLimitFilter inFlight;
    private final RequestBodyFilter bodies;
    private final Map<RequestBodyFilter.Refusal, LongAdder> refused = new EnumMap<>(RequestBodyFilter.Refusal.class);
    private final long maxBuffered;
    private final @Nullable LoadShedder shedder;

    /** The filters for {@code limits}, on Jetty, shedding nothing. */
    public RequestLimits(LimitsConfig limits) {
        this(limits, () -> 0, 1);
    }

    /**
     * The filters for {@code limits}, on Jetty, shedding by {@code waiting}: the requests waiting
     * for a connection of the request pool, which holds {@code poolSize}.
     */
    public RequestLimits(LimitsConfig limits, IntSupplier waiting, int poolSize) {
        SheddingConfig shedding = limits.shedding();
        this.shedder = !shedding.enabled()
                ? null
                : LoadShedder.builder()
                        .pressure(waiting)
                        .shedAt(shedding.lowAt(poolSize), shedding.normalAt(poolSize))
                        .retryAfter(shedding.retryAfter())
                        .priority(request -> priority(shedding, request))
                        .exempt(RequestLimits::neverShed)
                        .keyedRequestsJudgedAfterLookup(true)
                        .problemTypeBase("/problems/")
                        .build();
        for (RequestBodyFilter.Refusal reason : RequestBodyFilter.Refusal.values()) {
            refused.put(reason, new LongAdder());
        }
        this.maxBuffered = limits.maxBufferedBodyBytes();
        this.inFlight = InFlightLimitFilter.builder()
                .limit("api_key", limits.maxInFlightPerKey(), RequestAccount::keyIdOf)
                .limit("address", limits.maxInFlightPerAddress(), request -> request.getRemoteAddr())
                .problemTypeBase("/problems/")
                .build();
        this.bodies = RequestBodyFilter.builder()
                .maxBodyBytes(limits.maxBodyBytes())
                .bodyTimeout(limits.bodyTimeout())
                .minBodyRate(limits.minBodyRate())
                .minBodyRateGrace(limits.minBodyRateGrace())
                .maxBufferedBytes(limits.maxBufferedBodyBytes())
                .readDeadlines(new JettyReadDeadlines())
                .listener(reason -> refused.get(reason).increment())
                .problemTypeBase("/problems/")
                .build();
    }

    /**
     * The load shedder, to run first (before authentication, which may need the database), and to
     * give the idempotency filter, which judges keyed requests after their lookup; {@code null}
     * when shedding is off.
     */
    public @Nullable LoadShedder shedder() {
        return shedder;
    }

    /** The route group of a path under {@code /v1/}: its first segment ({@code /v1/payments/x}: {@code payments}). */
    static @Nullable String routeGroup(String path) {
        if (!path.startsWith("/v1/")) {
            return null;
        }
        int end = path.indexOf('/', 4);
        return path.substring(4, end < 0 ? path.length() : end);
    }

    /** A route group's configured priority; {@code normal} for one not listed. */
    private static LoadShedder.Priority priority(SheddingConfig shedding, HttpServletRequest request) {
        String group = routeGroup(request.getRequestURI());
        LoadShedder.Priority p = group == null ? null : shedding.priorities().get(group);
        return p == null ? LoadShedder.Priority.NORMAL : p;
    }

    /**
     * Only the API is shed: probes, metrics, the dashboard and documents never are, nor
     * {@code GET /v1/rate_limit}, which a client reads to learn when to come back.
     */
    private static boolean neverShed(HttpServletRequest request) {
        String path = request.getRequestURI();
        return !path.startsWith("/v1/") || path.equals("/v1/rate_limit") || path.equals("/v1/rate_limit/");
    }

    /** The in-flight bounds, to run before rate limits. */
    public InFlightLimitFilter inFlight() {
        return inFlight;
    }

    /** The body filter, to run before anything that reads a body. */
    public RequestBodyFilter bodies() {
        return bodies;
    }

    @Override
    public String get() {
        PrometheusText text = new PrometheusText()
                .family(
                        "retrysafe_http_request_bodies_refused_total",
                        "counter",
                        "Request bodies this instance refused or lost, by reason (too_large, timed_out, client_gone, busy).");
        for (Map.Entry<RequestBodyFilter.Refusal, LongAdder> e : refused.entrySet()) {
            text.sample(
                    "retrysafe_http_request_bodies_refused_total{reason=\""
                            + e.getKey().name().toLowerCase(Locale.ROOT) + "\"}",
                    e.getValue().sum());
        }
        if (shedder != null) {
            text.family(
                    "retrysafe_http_requests_shed_total",
                    "counter",
                    "Requests this instance shed because it was overloaded (503 overloaded), by priority.");
            for (LoadShedder.Priority p : List.of(LoadShedder.Priority.LOW, LoadShedder.Priority.NORMAL)) {
                text.sample(
                        "retrysafe_http_requests_shed_total{priority=\"" + p.wireName() + "\"}", shedder.shedCount(p));
            }
            text.family(
                            "retrysafe_db_connections_waiting",
                            "gauge",
                            "Requests waiting for a database connection now: the load shedding goes by.")
                    .sample("retrysafe_db_connections_waiting", shedder.pressure());
        }
        return text.family(
                        "retrysafe_http_request_body_buffered_bytes",
                        "gauge",
                        "Memory the request bodies in flight hold now.")
                .sample("retrysafe_http_request_body_buffered_bytes", bodies.bufferedBytes())
                .family(
                        "retrysafe_http_request_body_buffered_bytes_max",
                        "gauge",
                        "The most memory request bodies in flight may hold (limits.max_buffered_body_bytes).")
                .sample("retrysafe_http_request_body_buffered_bytes_max", maxBuffered)
                .toString();
    }
}

package dev.retrysafe.server.http;

import dev.retrysafe.server.config.LimitsConfig;
import dev.retrysafe.servlet.InFlightLimitFilter;
import dev.retrysafe.servlet.RequestBodyFilter;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * What a request may cost before the application sees it ({@code limits}): the in-flight bounds
 * per API key and per address, and the body filter (size, deadline, rate, memory), with their
 * figures for {@code GET /metrics}. Threadsafe.
 */
public final class RequestLimits implements Supplier<String> {

    private final InFlightLimitFilter inFlight;
    private final RequestBodyFilter bodies;
    private final Map<RequestBodyFilter.Refusal, LongAdder> refused = new EnumMap<>(RequestBodyFilter.Refusal.class);
    private final long maxBuffered;

    /** The filters for {@code limits}, on Jetty. */
    public RequestLimits(LimitsConfig limits) {
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

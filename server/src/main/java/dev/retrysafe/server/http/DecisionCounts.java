package dev.retrysafe.server.http;

import dev.retrysafe.servlet.DecisionListener;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The rate-limit decisions and idempotency claims of this instance, counted from the filters'
 * {@link DecisionListener} and rendered for {@code GET /metrics} under the names the Spring Boot
 * starter's Micrometer meters have in Prometheus ({@code retrysafe_ratelimit_decisions_total},
 * {@code retrysafe_ratelimit_refunds_total}, {@code retrysafe_idempotency_claims_total}, labels in
 * alphabetical order as Micrometer writes them). Threadsafe.
 */
public final class DecisionCounts implements DecisionListener, Supplier<String> {

    private final Map<String, LongAdder> claims = new ConcurrentSkipListMap<>();
    private final Map<String, LongAdder> decisions = new ConcurrentSkipListMap<>();
    private final Map<String, LongAdder> refunds = new ConcurrentSkipListMap<>();
    private final Map<String, String> seriesCache = new ConcurrentHashMap<>();

    @Override
    public void claimed(String outcome) {
        count(claims, "retrysafe_idempotency_claims_total{outcome=\"" + outcome + "\"}");
    }

    @Override
    public void decided(String policy, String outcome) {
        count(decisions, "retrysafe_ratelimit_decisions_total{outcome=\"" + outcome + "\",policy=\"" + policy + "\"}");
    }

    @Override
    public void refunded(String policy) {
        count(refunds, "retrysafe_ratelimit_refunds_total{policy=\"" + policy + "\"}");
    }

    private void count(Map<String, LongAdder> counters, String series) {
        counters.computeIfAbsent(seriesCache.computeIfAbsent(series, s -> s), s -> new LongAdder())
                .increment();
    }

    @Override
    public String get() {
        PrometheusText text = new PrometheusText();
        section(text, "retrysafe_ratelimit_decisions_total", "Rate-limit decisions by policy and outcome.", decisions);
        section(text, "retrysafe_ratelimit_refunds_total", "Rate-limit charges given back (replays, 409s).", refunds);
        section(text, "retrysafe_idempotency_claims_total", "Idempotency-Key claims by outcome.", claims);
        return text.toString();
    }

    private static void section(PrometheusText text, String family, String help, Map<String, LongAdder> counters) {
        if (counters.isEmpty()) {
            return; // a family without samples says nothing
        }
        text.family(family, "counter", help);
        counters.forEach((series, count) -> text.sample(series, count.sum()));
    }
}

package dev.retrysafe.client.internal;

import java.math.BigDecimal;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a response's rate-limit fields say about the next request: nothing, budget left, or
 * exhausted until a reset. Read from {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers: a
 * List with one item per policy, {@code r} the units left, {@code t} the seconds until the reset),
 * or else from {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset} (epoch seconds when the
 * value is at least {@value #EPOCH_THRESHOLD}, as GitHub sends it; otherwise delta seconds).
 * Malformed fields say nothing.
 */
public sealed interface RateLimitHint {

    /** The standard field. */
    String RATELIMIT = "RateLimit";
    /** The de-facto remaining count. */
    String X_REMAINING = "X-RateLimit-Remaining";
    /** The de-facto reset time. */
    String X_RESET = "X-RateLimit-Reset";
    /** An {@code X-RateLimit-Reset} at least this large is epoch seconds (2001-09-09 onwards). */
    long EPOCH_THRESHOLD = 1_000_000_000L;

    /** The response says nothing usable about rate limits. */
    record None() implements RateLimitHint {}

    /** Every policy the response names has units left. */
    record Available() implements RateLimitHint {}

    /**
     * Some policy has no units left.
     *
     * @param resetIn how long until it has again, from the response's arrival
     */
    record Exhausted(Duration resetIn) implements RateLimitHint {}

    /** The hint of {@code headers}, received at {@code now} (for epoch resets). */
    static RateLimitHint of(HttpHeaders headers, Instant now) {
        List<String> standard = headers.allValues(RATELIMIT);
        if (!standard.isEmpty()) {
            return fromStandard(String.join(", ", standard));
        }
        Optional<String> remaining = headers.firstValue(X_REMAINING);
        if (remaining.isPresent()) {
            return fromDeFacto(remaining.get(), headers.firstValue(X_RESET).orElse(null), now);
        }
        return new None();
    }

    /** The hint of a {@code RateLimit} field value. */
    static RateLimitHint fromStandard(String value) {
        List<StructuredList.Member> members = StructuredList.parse(value);
        if (members == null || members.isEmpty()) {
            return new None();
        }
        boolean exhausted = false;
        long longestReset = -1;
        for (StructuredList.Member m : members) {
            Long r = m.integer("r");
            if (r == null) {
                return new None(); // r is required: a field without it is not the draft's
            }
            if (r <= 0) {
                exhausted = true;
                Long t = m.integer("t");
                if (t != null && t >= 0) {
                    longestReset = Math.max(longestReset, t);
                }
            }
        }
        if (!exhausted) {
            return new Available();
        }
        // exhausted without a reset: there is nothing to wait for, so the request is sent
        return longestReset < 0 ? new None() : new Exhausted(Duration.ofSeconds(longestReset));
    }

    /** The hint of {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}. */
    static RateLimitHint fromDeFacto(String remainingValue, @Nullable String resetValue, Instant now) {
        BigDecimal remaining = number(remainingValue);
        if (remaining == null) {
            return new None();
        }
        if (remaining.signum() > 0) {
            return new Available();
        }
        BigDecimal reset = resetValue == null ? null : number(resetValue);
        if (reset == null) {
            return new None();
        }
        Duration resetIn;
        if (reset.compareTo(BigDecimal.valueOf(EPOCH_THRESHOLD)) >= 0) {
            Instant at = Instant.ofEpochMilli(reset.movePointRight(3).longValue());
            resetIn = at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
        } else {
            resetIn = Duration.ofMillis(reset.movePointRight(3).longValue());
        }
        return resetIn.isZero() ? new Available() : new Exhausted(resetIn);
    }

    /** A non-negative decimal of at most 15 integer digits and 3 fraction digits, or {@code null}. */
    private static @Nullable BigDecimal number(String raw) {
        String s = raw.strip();
        if (!s.matches("\\d{1,15}(\\.\\d{1,3})?")) {
            return null;
        }
        return new BigDecimal(s);
    }
}

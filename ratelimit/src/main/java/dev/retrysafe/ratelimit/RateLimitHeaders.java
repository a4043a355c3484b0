package dev.retrysafe.ratelimit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Renders a {@link Decision} into response headers, in this order:
 *
 * <ul>
 *   <li>{@code RateLimit-Policy} and {@code RateLimit}, Lists of Structured Fields (RFC 9651) as
 *       defined by draft-ietf-httpapi-ratelimit-headers-11 (sections 3 and 4; the -12 working
 *       copy keeps the same parameters): one item per policy, named by an sf-string, with
 *       {@code q} (quota) and {@code w} (window in seconds, only when the window is whole
 *       seconds, since the draft has no sub-second windows), and {@code r} (available units) and
 *       {@code t} (seconds until the budget is whole again or the window ends). The partition
 *       key parameter {@code pk} is never sent: a scope's key is an API key id, an account or a
 *       client address, and even a hash of one is a stable identifier that caches and proxies
 *       would see; the client knows which of its credentials it used.</li>
 *   <li>{@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Used}, {@code -Reset} (UTC epoch
 *       seconds) and {@code -Resource} (the policy name), for the policy closest to
 *       exhaustion, for clients written against the common de-facto headers.</li>
 *   <li>{@code Retry-After} (whole seconds, at least 1) for {@link Decision.Rejected} and
 *       {@link Decision.Unavailable}, plus an optional random extra of up to
 *       {@code retryAfterJitterSeconds} so that refused clients do not all return at once.</li>
 *   <li>With a {@link PolicySet} ({@link #render(Decision, PolicySet)}): {@code X-RateLimit-Policy}
 *       and {@code X-RateLimit-Policy-Docs}, and on a deprecated set {@code Deprecation},
 *       {@code Sunset} and {@code Link}.</li>
 * </ul>
 *
 * <p>A policy whose state is not {@linkplain PolicyState#known() known} (store unreachable,
 * failed open) appears in {@code RateLimit-Policy}, which describes configuration, but not in
 * {@code RateLimit} or {@code X-RateLimit-*}, which would otherwise report a budget nobody
 * counted. This class is immutable and threadsafe.
 */
public final class RateLimitHeaders {

    public static final String RATELIMIT_POLICY = "RateLimit-Policy";
    public static final String RATELIMIT = "RateLimit";
    public static final String X_LIMIT = "X-RateLimit-Limit";
    public static final String X_REMAINING = "X-RateLimit-Remaining";
    public static final String X_USED = "X-RateLimit-Used";
    public static final String X_RESET = "X-RateLimit-Reset";
    public static final String X_RESOURCE = "X-RateLimit-Resource";
    public static final String RETRY_AFTER = "Retry-After";
    /** The version of the policy set the answer was counted under (the seed's name). */
    public static final String X_POLICY = "X-RateLimit-Policy";
    /** Where that set is documented. */
    public static final String X_POLICY_DOCS = "X-RateLimit-Policy-Docs";
    /** RFC 9745: {@code @<epoch seconds>}, when the caller's set was (or will be) deprecated. */
    public static final String DEPRECATION = "Deprecation";
    /** RFC 8594: an HTTP-date, when the caller's set stops applying to it. */
    public static final String SUNSET = "Sunset";
    /** {@code rel="deprecation"} (RFC 9745) and {@code rel="sunset"} (RFC 8594) links. */
    public static final String LINK = "Link";

    private static final long MICROS_PER_SECOND = 1_000_000L;

    private final long retryAfterJitterSeconds;
    private final @Nullable RandomGenerator random;

    private RateLimitHeaders(Builder builder) {
        this.retryAfterJitterSeconds = builder.retryAfterJitterSeconds;
        this.random = builder.random;
    }

    /** Headers without jitter on {@code Retry-After}. */
    public static RateLimitHeaders standard() {
        return builder().build();
    }

    /** A builder: no jitter, {@link ThreadLocalRandom} once jitter is set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The headers for {@code decision}, in a fixed order; empty when no policy applied. Shadow
     * policies ({@link PolicyMode#SHADOW}) are left out: clients see only the limits that apply
     * to them.
     */
    public List<HeaderField> render(Decision decision) {
        List<HeaderField> fields = new ArrayList<>(9);
        List<PolicyState> states = ShadowPolicies.enforced(decision.states());
        if (!states.isEmpty()) {
            fields.add(new HeaderField(RATELIMIT_POLICY, policyList(states)));
        }
        String limits = serviceLimitList(states);
        if (!limits.isEmpty()) {
            fields.add(new HeaderField(RATELIMIT, limits));
        }
        PolicyState closest = decision.closestToExhaustion();
        if (closest != null) {
            fields.add(new HeaderField(X_LIMIT, Long.toString(closest.limit())));
            fields.add(new HeaderField(X_REMAINING, Long.toString(closest.remaining())));
            fields.add(new HeaderField(X_USED, Long.toString(closest.used())));
            fields.add(new HeaderField(X_RESET, Long.toString(closest.resetEpochSeconds())));
            fields.add(new HeaderField(X_RESOURCE, closest.policy().name()));
        }
        long retryAfter = switch (decision) {
            case Decision.Allowed allowed -> 0;
            case Decision.Rejected rejected -> rejected.retryAfterSeconds();
            case Decision.Unavailable unavailable -> unavailable.retryAfterSeconds();
        };
        if (retryAfter > 0) {
            fields.add(new HeaderField(RETRY_AFTER, Long.toString(Math.max(1, retryAfter) + jitter())));
        }
        return List.copyOf(fields);
    }

    /**
     * The headers for {@code decision} counted under {@code set}: those of {@link #render(Decision)}
     * followed by the set's own ({@link PolicySet#headers()}: {@code X-RateLimit-Policy},
     * {@code X-RateLimit-Policy-Docs}, and for a deprecated set {@code Deprecation}, {@code Sunset}
     * and {@code Link}), which are rendered once per set.
     */
    public List<HeaderField> render(Decision decision, PolicySet set) {
        List<HeaderField> fields = new ArrayList<>(render(decision));
        fields.addAll(set.headers());
        return List.copyOf(fields);
    }

    private static String policyList(List<PolicyState> states) {
        StringBuilder value = new StringBuilder();
        for (PolicyState state : states) {
            if (!value.isEmpty()) {
                value.append(", ");
            }
            appendString(value, state.policy().name());
            value.append(";q=").append(state.limit());
            long windowMicros = state.policy().windowMicros();
            if (windowMicros % MICROS_PER_SECOND == 0) {
                value.append(";w=").append(windowMicros / MICROS_PER_SECOND);
            }
        }
        return value.toString();
    }

    private static String serviceLimitList(List<PolicyState> states) {
        StringBuilder value = new StringBuilder();
        for (PolicyState state : states) {
            if (!state.known()) {
                continue;
            }
            if (!value.isEmpty()) {
                value.append(", ");
            }
            appendString(value, state.policy().name());
            value.append(";r=").append(state.remaining()).append(";t=").append(state.resetSeconds());
        }
        return value.toString();
    }

    /** An sf-string (RFC 9651 section 4.1.6): printable ASCII, {@code "} and {@code \} escaped. */
    static void appendString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException("not representable as a structured-field string: " + s);
            }
            if (c == '"' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        out.append('"');
    }

    private long jitter() {
        if (retryAfterJitterSeconds == 0) {
            return 0;
        }
        RandomGenerator r = random != null ? random : ThreadLocalRandom.current();
        return r.nextLong(retryAfterJitterSeconds + 1);
    }

    /** Builds {@link RateLimitHeaders}. Not threadsafe. */
    public static final class Builder {
        private long retryAfterJitterSeconds;
        private @Nullable RandomGenerator random;

        private Builder() {}

        /**
         * Adds between 0 and {@code maxExtraSeconds} (uniformly, inclusive) to every
         * {@code Retry-After}; 0 (the default) for none.
         */
        public Builder retryAfterJitterSeconds(long maxExtraSeconds) {
            if (maxExtraSeconds < 0) {
                throw new IllegalArgumentException("retryAfterJitterSeconds must not be negative: " + maxExtraSeconds);
            }
            this.retryAfterJitterSeconds = maxExtraSeconds;
            return this;
        }

        /**
         * The source of jitter; must be threadsafe if the headers are rendered concurrently
         * (tests pass a seeded one). {@link ThreadLocalRandom} by default.
         */
        public Builder random(RandomGenerator random) {
            this.random = random;
            return this;
        }

        public RateLimitHeaders build() {
            return new RateLimitHeaders(this);
        }
    }
}

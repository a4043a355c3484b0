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
        return render(new DecisionBuffer(decision.states().size()).set(decision));
    }

    /**
     * The headers for the decision in {@code decision}, exactly as {@link #render(Decision)}
     * renders the {@code Decision} it stands for: what the HTTP filter sets after
     * {@link RateLimitStore#decide(String, List, DecisionBuffer)}. Allocates the strings only.
     */
    public List<HeaderField> render(DecisionBuffer decision) {
        List<HeaderField> fields = new ArrayList<>(9);
        String policies = policyList(decision);
        if (!policies.isEmpty()) {
            fields.add(new HeaderField(RATELIMIT_POLICY, policies));
        }
        String limits = serviceLimitList(decision);
        if (!limits.isEmpty()) {
            fields.add(new HeaderField(RATELIMIT, limits));
        }
        int closest = decision.closestToExhaustion();
        if (closest >= 0) {
            fields.add(new HeaderField(X_LIMIT, Long.toString(decision.limit(closest))));
            fields.add(new HeaderField(X_REMAINING, Long.toString(decision.remaining(closest))));
            fields.add(new HeaderField(X_USED, Long.toString(decision.used(closest))));
            fields.add(new HeaderField(X_RESET, Long.toString(decision.resetEpochSeconds(closest))));
            fields.add(new HeaderField(X_RESOURCE, decision.policy(closest).name()));
        }
        long retryAfter = decision.retryAfterSeconds();
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

    /** Every enforced policy, known or not (shadow policies are never shown to clients). */
    private static String policyList(DecisionBuffer d) {
        StringBuilder value = new StringBuilder();
        for (int i = 0; i < d.size(); i++) {
            Policy policy = d.policy(i);
            if (policy.shadow()) {
                continue;
            }
            if (!value.isEmpty()) {
                value.append(", ");
            }
            appendString(value, policy.name());
            value.append(";q=").append(d.limit(i));
            long windowMicros = policy.windowMicros();
            if (windowMicros % MICROS_PER_SECOND == 0) {
                value.append(";w=").append(windowMicros / MICROS_PER_SECOND);
            }
        }
        return value.toString();
    }

    private static String serviceLimitList(DecisionBuffer d) {
        StringBuilder value = new StringBuilder();
        for (int i = 0; i < d.size(); i++) {
            if (!d.known(i) || d.policy(i).shadow()) {
                continue;
            }
            if (!value.isEmpty()) {
                value.append(", ");
            }
            appendString(value, d.policy(i).name());
            value.append(";r=").append(d.remaining(i)).append(";t=").append(d.resetSeconds(i));
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

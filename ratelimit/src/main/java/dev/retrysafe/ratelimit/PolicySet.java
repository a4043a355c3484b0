package dev.retrysafe.ratelimit;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One version of the rate-limit policies: a name clients see ({@code X-RateLimit-Policy}), a page
 * that documents it ({@code X-RateLimit-Policy-Docs}), and its policies. The current set of a
 * {@link PolicyVersions} has no dates; a previous set is {@linkplain #deprecated() deprecated} and
 * has a {@linkplain #deprecatedAt() deprecation date} (accounts created from then on start on a
 * newer set) and a {@linkplain #sunset() sunset} (its accounts move on). Its response headers are
 * rendered once, when the versions are built, so choosing a set and sending its headers costs no
 * allocation. Built only by {@link PolicyVersions.Builder}. Immutable and threadsafe.
 */
public final class PolicySet {

    /** IMF-fixdate (RFC 9110 section 5.6.7): two-digit day, English names, always GMT. */
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.ofPattern(
                    "EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private final String version;
    private final String docsUrl;
    private final List<Policy> policies;
    private final @Nullable Instant deprecatedAt;
    private final @Nullable Instant sunset;
    private final @Nullable String counterKeyPrefix;
    private final List<HeaderField> headers;

    PolicySet(
            String version,
            String docsUrl,
            List<Policy> policies,
            @Nullable Instant deprecatedAt,
            @Nullable Instant sunset,
            String currentDocsUrl) {
        this.version = version;
        this.docsUrl = docsUrl;
        this.policies = List.copyOf(policies);
        this.deprecatedAt = deprecatedAt;
        this.sunset = sunset;
        // the current set keeps the keys it had before versions existed, so its counters survive;
        // a previous set's policy of the same name counts apart from it
        this.counterKeyPrefix = deprecatedAt == null ? null : version + "/";
        List<HeaderField> fields = new ArrayList<>(5);
        fields.add(new HeaderField(RateLimitHeaders.X_POLICY, version));
        fields.add(new HeaderField(RateLimitHeaders.X_POLICY_DOCS, docsUrl));
        if (deprecatedAt != null && sunset != null) {
            fields.add(new HeaderField(RateLimitHeaders.DEPRECATION, "@" + deprecatedAt.getEpochSecond()));
            fields.add(new HeaderField(RateLimitHeaders.SUNSET, httpDate(sunset)));
            fields.add(new HeaderField(
                    RateLimitHeaders.LINK,
                    "<" + currentDocsUrl + ">; rel=\"deprecation\", <" + currentDocsUrl + ">; rel=\"sunset\""));
        }
        this.headers = List.copyOf(fields);
    }

    /** {@code instant} as an IMF-fixdate, whole seconds (the format of {@code Sunset}). */
    static String httpDate(Instant instant) {
        return IMF_FIXDATE.format(Instant.ofEpochSecond(instant.getEpochSecond()));
    }

    /** The set's name, for example {@code v2}: {@code X-RateLimit-Policy}. */
    public String version() {
        return version;
    }

    /** Where the set is documented: {@code X-RateLimit-Policy-Docs}. */
    public String docsUrl() {
        return docsUrl;
    }

    /** Its policies, in the order they are checked and shown; names are distinct. */
    public List<Policy> policies() {
        return policies;
    }

    /** Whether this is a previous set (it has a deprecation date and a sunset). */
    public boolean deprecated() {
        return deprecatedAt != null;
    }

    /**
     * When the set was (or will be) deprecated: accounts created from then on start on a newer
     * set; {@code null} for the current set. Sent as {@code Deprecation: @<epoch seconds>}.
     */
    public @Nullable Instant deprecatedAt() {
        return deprecatedAt;
    }

    /** When its accounts move to a newer set; {@code null} for the current set. Sent as {@code Sunset}. */
    public @Nullable Instant sunset() {
        return sunset;
    }

    /**
     * What the counter keys of this set's policies start with: {@code null} for the current set
     * (its keys are those of an unversioned configuration), {@code "<version>/"} for a previous
     * one, so that its counters never mix with another set's policy of the same name.
     */
    public @Nullable String counterKeyPrefix() {
        return counterKeyPrefix;
    }

    /**
     * The headers every limited answer on this set carries, rendered once: {@code
     * X-RateLimit-Policy} and {@code X-RateLimit-Policy-Docs}, and for a previous set also
     * {@code Deprecation} (RFC 9745), {@code Sunset} (RFC 8594) and {@code Link} with the
     * current set's documentation as {@code rel="deprecation"} and {@code rel="sunset"}.
     */
    public List<HeaderField> headers() {
        return headers;
    }

    @Override
    public String toString() {
        return deprecated() ? version + " (deprecated " + deprecatedAt + ", sunset " + sunset + ")" : version;
    }
}

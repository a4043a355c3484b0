package dev.retrysafe.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyVersions;
import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Versioned policy sets ({@code rate_limits.version}, {@code docs_url}, {@code previous} and
 * {@code allow_short_notice}): the name and documentation of the current set (whose policies are
 * {@code rate_limits.policies}) and the previous sets still served to grandfathered accounts.
 * An empty {@code version} leaves limits unversioned, as before versions existed: no
 * {@code X-RateLimit-Policy} headers, and no previous sets allowed. See docs/rate-limits.md
 * ("Versions"). Immutable.
 *
 * @param version          the current set's name, or empty for unversioned limits
 * @param docsUrl          where the current set is documented (required with a version)
 * @param previous         older sets, each with its deprecation date, sunset, docs and policies
 * @param allowShortNotice {@code true} lets the server start although the current set lowers a
 *                         previous set's quota or burst with less than {@link #NOTICE} of notice
 */
public record RateLimitVersions(String version, String docsUrl, List<Previous> previous, boolean allowShortNotice) {

    /** The notice owed before a quota or a burst goes down (the seed's rule). */
    public static final Duration NOTICE = Duration.ofDays(90);

    private static final String VERSION_FORM = "[A-Za-z0-9_.-]{1,32}";
    private static final Set<String> PREVIOUS_FIELDS =
            Set.of("version", "deprecated_at", "sunset", "docs_url", "policies");

    /** No versions: limits as before versions existed. */
    public static final RateLimitVersions NONE = new RateLimitVersions("", "", List.of(), false);

    /**
     * One previous set ({@code rate_limits.previous[i]}).
     *
     * @param version      its name, distinct from every other set's
     * @param deprecatedAt accounts created from then on start on a newer set
     * @param sunset       its accounts move on from then; after {@code deprecatedAt}
     * @param docsUrl      where it is documented
     * @param policies     its policies, as {@code rate_limits.policies}
     */
    public record Previous(
            String version, Instant deprecatedAt, Instant sunset, String docsUrl, List<Policy> policies) {
        public Previous {
            policies = List.copyOf(policies);
        }
    }

    /** Checks the values; every error names its setting. */
    public RateLimitVersions {
        previous = List.copyOf(previous);
        if (version.isEmpty()) {
            ConfigException.check(
                    previous.isEmpty(),
                    "rate_limits.previous",
                    "rate_limits.previous needs rate_limits.version (the current set's name)");
        } else {
            ConfigException.check(
                    version.matches(VERSION_FORM),
                    "rate_limits.version",
                    "rate_limits.version must be 1..32 characters of A-Z a-z 0-9 _ . -, was '" + version + "'");
            checkDocsUrl("rate_limits.docs_url", docsUrl);
        }
        Set<String> versions = new HashSet<>(Set.of(version));
        for (int i = 0; i < previous.size(); i++) {
            Previous p = previous.get(i);
            String at = "rate_limits.previous[" + i + "]";
            ConfigException.check(
                    p.version().matches(VERSION_FORM),
                    at + ".version",
                    at + ".version must be 1..32 characters of A-Z a-z 0-9 _ . -, was '" + p.version() + "'");
            ConfigException.check(
                    versions.add(p.version()),
                    at + ".version",
                    at + ".version: version '" + p.version() + "' is used twice");
            ConfigException.check(
                    p.deprecatedAt().isBefore(p.sunset()),
                    at + ".sunset",
                    at + ".sunset (" + p.sunset() + ") must come after its deprecated_at (" + p.deprecatedAt() + ")");
            checkDocsUrl(at + ".docs_url", p.docsUrl());
            Set<String> names = new HashSet<>();
            for (Policy policy : p.policies()) {
                ConfigException.check(
                        names.add(policy.name()),
                        at + ".policies",
                        "policy names must be unique in a set, '" + policy.name() + "' is used twice in " + at
                                + ".policies");
            }
        }
    }

    /** Whether limits are versioned ({@code rate_limits.version} is set). */
    public boolean enabled() {
        return !version.isEmpty();
    }

    /** The sets as the filter uses them, with {@code current} as the current set's policies. */
    public PolicyVersions build(List<Policy> current, Clock clock) {
        PolicyVersions.Builder builder =
                PolicyVersions.builder().current(version, docsUrl, current).clock(clock);
        for (Previous p : previous) {
            builder.previous(p.version(), p.docsUrl(), p.deprecatedAt(), p.sunset(), p.policies());
        }
        return builder.build();
    }

    /**
     * The 90-day rule: for every previous set whose sunset is still to come, each of its policies
     * that the current set's policy of the same name lowers must have been announced at least
     * {@link #NOTICE} before that sunset, unless {@code allowShortNotice}.
     *
     * @param current   the current set's policies
     * @param announced when each previous set (by version) was first served, which is when its
     *                  accounts first saw {@code Sunset}
     * @param now       the server's time
     * @throws ConfigException naming the set's sunset, the policy, the notice and the earliest
     *                         acceptable sunset
     */
    public void checkNotice(List<Policy> current, Function<String, Instant> announced, Instant now) {
        if (allowShortNotice) {
            return;
        }
        for (int i = 0; i < previous.size(); i++) {
            Previous p = previous.get(i);
            if (!p.sunset().isAfter(now)) {
                continue; // its accounts have moved already
            }
            Instant since = announced.apply(p.version());
            Duration notice = Duration.between(since, p.sunset());
            if (notice.compareTo(NOTICE) >= 0) {
                continue;
            }
            for (Policy before : p.policies()) {
                for (Policy after : current) {
                    if (after.name().equals(before.name()) && lowers(before, after)) {
                        String at = "rate_limits.previous[" + i + "]";
                        throw new ConfigException(
                                at + ".sunset",
                                at + ".sunset: the current set " + version + " lowers policy '" + before.name()
                                        + "' of set "
                                        + p.version() + " (" + describe(before) + " -> " + describe(after)
                                        + ") with " + notice.toDays() + " days' notice (announced " + since
                                        + ", sunset " + p.sunset() + "); limits may only go down with "
                                        + NOTICE.toDays() + " days' notice: set " + at + ".sunset to "
                                        + since.plus(NOTICE) + " or later, or rate_limits.allow_short_notice: true");
                    }
                }
            }
        }
    }

    /**
     * Whether {@code after} gives less than {@code before}: a lower sustained rate (quota per
     * window, compared exactly across different windows), or fewer units at once (the burst of
     * GCRA and token bucket, the quota of a windowed algorithm). Plans multiply both policies by
     * the same factor, so they do not change the answer.
     */
    static boolean lowers(Policy before, Policy after) {
        BigInteger rateBefore = BigInteger.valueOf(before.quota()).multiply(BigInteger.valueOf(after.windowMicros()));
        BigInteger rateAfter = BigInteger.valueOf(after.quota()).multiply(BigInteger.valueOf(before.windowMicros()));
        return rateAfter.compareTo(rateBefore) < 0 || atOnce(after) < atOnce(before);
    }

    private static long atOnce(Policy policy) {
        return policy.algorithm() == Algorithm.GCRA || policy.algorithm() == Algorithm.TOKEN_BUCKET
                ? policy.burst()
                : policy.quota();
    }

    private static String describe(Policy policy) {
        return policy.quota() + " per " + Durations.format(policy.window()) + ", " + atOnce(policy) + " at once";
    }

    private static void checkDocsUrl(String setting, String url) {
        boolean ok;
        try {
            java.net.URI uri = new java.net.URI(url);
            ok = uri.getScheme() != null
                    && (uri.getScheme().equalsIgnoreCase("http")
                            || uri.getScheme().equalsIgnoreCase("https"))
                    && uri.getHost() != null
                    && url.chars().allMatch(c -> c > 0x20 && c < 0x7f);
        } catch (java.net.URISyntaxException e) {
            ok = false;
        }
        ConfigException.check(
                ok, setting, setting + " must be an absolute http(s) URL (it is sent in headers), was '" + url + "'");
    }

    /**
     * Reads {@code version}, {@code docs_url}, {@code previous} and {@code allow_short_notice}
     * from the {@code rate_limits} mapping.
     */
    static RateLimitVersions parse(JsonNode rateLimits) {
        String version = text(rateLimits.path("version"), "rate_limits.version");
        String docsUrl = text(rateLimits.path("docs_url"), "rate_limits.docs_url");
        JsonNode allow = rateLimits.path("allow_short_notice");
        boolean allowShortNotice;
        if (allow.isBoolean()) {
            allowShortNotice = allow.booleanValue();
        } else if (allow.isMissingNode() || allow.isNull()) {
            allowShortNotice = false;
        } else if (allow.asText().trim().equals("true") || allow.asText().trim().equals("false")) {
            allowShortNotice = Boolean.parseBoolean(allow.asText().trim());
        } else {
            throw new ConfigException(
                    "rate_limits.allow_short_notice",
                    "rate_limits.allow_short_notice must be true or false, was '" + allow.asText() + "'");
        }
        return new RateLimitVersions(version, docsUrl, previous(rateLimits.path("previous")), allowShortNotice);
    }

    private static List<Previous> previous(JsonNode list) {
        if (list.isMissingNode() || list.isNull()) {
            return List.of();
        }
        if (!list.isArray()) {
            throw new ConfigException("rate_limits.previous", "rate_limits.previous must be a list of policy sets");
        }
        List<Previous> sets = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            sets.add(previousSet(list.get(i), "rate_limits.previous[" + i + "]"));
        }
        return sets;
    }

    private static Previous previousSet(JsonNode entry, String at) {
        if (!entry.isObject()) {
            throw new ConfigException(
                    at, at + " must be a mapping with version, deprecated_at, sunset, docs_url and policies");
        }
        for (Iterator<String> it = entry.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!PREVIOUS_FIELDS.contains(field)) {
                throw new ConfigException(
                        at + "." + field,
                        "unknown setting '" + at + "." + field + "' (a previous set has "
                                + String.join(", ", new TreeSet<>(PREVIOUS_FIELDS)) + ")");
            }
        }
        String version = required(entry, at, "version");
        Instant deprecatedAt = time(entry, at, "deprecated_at");
        Instant sunset = time(entry, at, "sunset");
        String docsUrl = required(entry, at, "docs_url");
        JsonNode policies = entry.path("policies");
        if (policies.isMissingNode() || policies.isNull()) {
            throw new ConfigException(at + ".policies", at + ".policies is required (the set's own policies)");
        }
        return new Previous(
                version, deprecatedAt, sunset, docsUrl, RateLimitPolicies.parse(policies, at + ".policies"));
    }

    private static String text(JsonNode n, String setting) {
        if (n.isMissingNode() || n.isNull()) {
            return "";
        }
        if (!n.isValueNode()) {
            throw new ConfigException(setting, setting + " must be a single value, was '" + n + "'");
        }
        return n.asText().trim();
    }

    private static String required(JsonNode entry, String at, String field) {
        String value = text(entry.path(field), at + "." + field);
        if (value.isEmpty()) {
            throw new ConfigException(at + "." + field, at + "." + field + " is required");
        }
        return value;
    }

    private static Instant time(JsonNode entry, String at, String field) {
        String text = required(entry, at, field);
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            throw new ConfigException(
                    at + "." + field,
                    at + "." + field + " must be an RFC 3339 time such as 2027-03-31T00:00:00Z, was '" + text + "'");
        }
    }
}

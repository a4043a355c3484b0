package dev.retrysafe.ratelimit;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The current {@link PolicySet} and the previous ones still served to grandfathered accounts,
 * and the rule that picks an account's set at a given time:
 *
 * <ol>
 *   <li>an account pinned to a version gets that set, if it is the current one or a previous one
 *       whose sunset has not come;</li>
 *   <li>otherwise an account created before a previous set's {@code deprecatedAt} stays on it
 *       until its {@code sunset}; when several qualify, the one deprecated first (the set that
 *       was current when the account was made);</li>
 *   <li>otherwise the current set.</li>
 * </ol>
 *
 * <p>Time comes from the clock on every choice, so an account moves to its next set at the
 * sunset without a restart. With no previous set, or for an account on the current set, a
 * choice compares a few longs and allocates nothing. Immutable and threadsafe.
 */
public final class PolicyVersions {

    private static final Pattern VERSION = Pattern.compile("[A-Za-z0-9_.-]{1,32}");

    private final PolicySet current;
    /** Previous sets, deprecated first. */
    private final PolicySet[] previous;

    private final long[] deprecatedMillis;
    private final long[] sunsetMillis;
    private final Clock clock;

    private PolicyVersions(PolicySet current, List<PolicySet> previous, Clock clock) {
        this.current = current;
        this.previous = previous.toArray(PolicySet[]::new);
        this.deprecatedMillis = new long[this.previous.length];
        this.sunsetMillis = new long[this.previous.length];
        for (int i = 0; i < this.previous.length; i++) {
            deprecatedMillis[i] =
                    Objects.requireNonNull(this.previous[i].deprecatedAt()).toEpochMilli();
            sunsetMillis[i] = Objects.requireNonNull(this.previous[i].sunset()).toEpochMilli();
        }
        this.clock = clock;
    }

    /** A builder on the system clock (UTC). */
    public static Builder builder() {
        return new Builder();
    }

    /** The current set. */
    public PolicySet current() {
        return current;
    }

    /** The previous sets, the one deprecated first first. */
    public List<PolicySet> previous() {
        return List.of(previous);
    }

    /** The set called {@code version}, current or previous, or {@code null}. */
    public @Nullable PolicySet byVersion(String version) {
        if (current.version().equals(version)) {
            return current;
        }
        for (PolicySet set : previous) {
            if (set.version().equals(version)) {
                return set;
            }
        }
        return null;
    }

    /** The set of the request's account now ({@link RequestFacts#accountCreatedAt()}, pin). */
    public PolicySet setFor(RequestFacts facts) {
        if (previous.length == 0) {
            return current;
        }
        return setFor(facts.accountCreatedAt(), facts.rateLimitVersion(), clock.millis());
    }

    /**
     * The set of an account created at {@code createdAt} (unknown: {@code null}, which means the
     * current set unless pinned) and pinned to {@code pinnedVersion} (or not), at {@code
     * atMillis} (epoch milliseconds). A set's sunset is the first instant it no longer applies.
     */
    public PolicySet setFor(@Nullable Instant createdAt, @Nullable String pinnedVersion, long atMillis) {
        if (previous.length == 0) {
            return current;
        }
        if (pinnedVersion != null) {
            if (pinnedVersion.equals(current.version())) {
                return current;
            }
            for (int i = 0; i < previous.length; i++) {
                if (atMillis < sunsetMillis[i] && previous[i].version().equals(pinnedVersion)) {
                    return previous[i];
                }
            }
        }
        if (createdAt != null) {
            long created = createdAt.toEpochMilli();
            for (int i = 0; i < previous.length; i++) {
                if (created < deprecatedMillis[i] && atMillis < sunsetMillis[i]) {
                    return previous[i];
                }
            }
        }
        return current;
    }

    /**
     * Where an account on {@code set} goes at that set's sunset (the date it moves is
     * {@code set.sunset()}), or {@code null} when {@code set} is the current set.
     */
    public @Nullable PolicySet successor(PolicySet set, @Nullable Instant createdAt, @Nullable String pinnedVersion) {
        Instant sunset = set.sunset();
        return sunset == null ? null : setFor(createdAt, pinnedVersion, sunset.toEpochMilli());
    }

    /** Builds {@link PolicyVersions}. Not threadsafe. */
    public static final class Builder {
        private @Nullable String version;
        private @Nullable String docsUrl;
        private List<Policy> policies = List.of();
        private final List<Previous> previous = new ArrayList<>();
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        /** The current set (required): its name, its documentation and its policies. */
        public Builder current(String version, String docsUrl, List<Policy> policies) {
            this.version = version;
            this.docsUrl = docsUrl;
            this.policies = List.copyOf(policies);
            return this;
        }

        /**
         * A previous set, served to accounts created before {@code deprecatedAt} (or pinned to
         * it) until {@code sunset}, which must come after {@code deprecatedAt}.
         */
        public Builder previous(
                String version, String docsUrl, Instant deprecatedAt, Instant sunset, List<Policy> policies) {
            Objects.requireNonNull(deprecatedAt, "deprecatedAt");
            Objects.requireNonNull(sunset, "sunset");
            if (!deprecatedAt.isBefore(sunset)) {
                throw new IllegalArgumentException("set " + version + ": deprecatedAt (" + deprecatedAt
                        + ") must be before sunset (" + sunset + ")");
            }
            previous.add(new Previous(version, docsUrl, deprecatedAt, sunset, List.copyOf(policies)));
            return this;
        }

        /** Where "now" comes from (default: the system clock); a wall clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The versions.
         *
         * @throws IllegalStateException    without a current set
         * @throws IllegalArgumentException for a bad version name or URL, a version used twice, or
         *                                  a policy name used twice in one set
         */
        public PolicyVersions build() {
            if (version == null || docsUrl == null) {
                throw new IllegalStateException("the current set is required: current(version, docsUrl, policies)");
            }
            Set<String> versions = new HashSet<>();
            check(version, docsUrl, policies, versions);
            for (Previous p : previous) {
                check(p.version(), p.docsUrl(), p.policies(), versions);
            }
            String currentDocs = docsUrl;
            List<PolicySet> sets = previous.stream()
                    .sorted(Comparator.comparing(Previous::deprecatedAt))
                    .map(p -> new PolicySet(
                            p.version(), p.docsUrl(), p.policies(), p.deprecatedAt(), p.sunset(), currentDocs))
                    .toList();
            return new PolicyVersions(new PolicySet(version, docsUrl, policies, null, null, currentDocs), sets, clock);
        }

        private static void check(String version, String docsUrl, List<Policy> policies, Set<String> versions) {
            if (!VERSION.matcher(version).matches()) {
                throw new IllegalArgumentException(
                        "version must be 1-32 letters, digits, '_', '-' or '.': '" + version + "'");
            }
            if (!versions.add(version)) {
                throw new IllegalArgumentException("version " + version + " is used twice");
            }
            checkDocsUrl(version, docsUrl);
            Set<String> names = new HashSet<>();
            for (Policy policy : policies) {
                if (!names.add(policy.name())) {
                    throw new IllegalArgumentException(
                            "set " + version + ": policy name " + policy.name() + " is used twice");
                }
            }
        }

        /** An absolute http(s) URI, which a {@code Link} field can carry between angle brackets. */
        private static void checkDocsUrl(String version, String docsUrl) {
            try {
                URI uri = new URI(docsUrl);
                String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
                if ((scheme.equals("http") || scheme.equals("https"))
                        && uri.getHost() != null
                        && docsUrl.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                    return;
                }
            } catch (URISyntaxException e) {
                // reported below
            }
            throw new IllegalArgumentException(
                    "docs URL of set " + version + " must be an absolute http(s) URL: '" + docsUrl + "'");
        }

        private record Previous(
                String version, String docsUrl, Instant deprecatedAt, Instant sunset, List<Policy> policies) {}
    }
}

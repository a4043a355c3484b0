package dev.retrysafe.servlet.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.HeaderField;
import dev.retrysafe.ratelimit.Plans;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicySet;
import dev.retrysafe.ratelimit.PolicyVersions;
import dev.retrysafe.ratelimit.RateLimitHeaders;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.ShadowPolicies;
import dev.retrysafe.servlet.ProblemType;
import dev.retrysafe.servlet.RateLimitFilter;
import dev.retrysafe.servlet.RateLimitRefusal;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The rate limit's step of a request: who is calling, which policies apply, one decision, then
 * headers and either an admission or a refusal. Threadsafe.
 */
public final class RateLimitHandler {

    /** The most of a refused request's body read and dropped to keep its connection usable. */
    public static final long DRAIN_LIMIT = 64 * 1024;

    /** Replaced whole by {@link #reconfigure}; each request reads it once. */
    private volatile RateLimitSettings settings;

    private final RateLimitHeaders headers;
    private final RateLimitRefusal.@Nullable Writer refusals;

    /** A handler with {@code settings}. */
    public RateLimitHandler(RateLimitSettings settings) {
        this(settings, null);
    }

    /** A handler with {@code settings} whose refusals {@code refusals} answers (null: written here). */
    public RateLimitHandler(RateLimitSettings settings, RateLimitRefusal.@Nullable Writer refusals) {
        this.settings = settings;
        this.refusals = refusals;
        this.headers = RateLimitHeaders.builder()
                .retryAfterJitterSeconds(settings.retryAfterJitter().toSeconds())
                .build();
    }

    /**
     * Decides whether {@code request} may go on, charging it as it arrives, before its body can
     * cost anything: the budget headers are set on {@code response}, and a refusal is answered
     * whole. A request no policy applies to, or an exempt one (its budgets are only looked at and
     * left on it under {@link RateLimitFilter#DECISION_ATTRIBUTE}), is admitted free.
     *
     * @return what the request spent, refundable; {@code null} when it was refused and answered
     */
    public @Nullable Admission admit(HttpServletRequest request, HttpServletResponse response) throws IOException {
        RateLimitSettings settings = this.settings; // one request, one set of policies, even across a reload
        RequestFacts facts = settings.facts().apply(request);
        if (facts == null) {
            return Admission.FREE;
        }
        PolicyVersions versions = settings.versions();
        PolicySet set = versions == null ? null : versions.setFor(facts);
        List<Charge> charges = set == null
                ? settings.plans().chargesFor(settings.policies(), facts)
                : settings.plans().chargesFor(set, facts);
        if (charges.isEmpty()) {
            return Admission.FREE;
        }
        String partition = facts.partition();
        if (settings.exempt().test(request)) {
            Decision budgets = settings.store().peek(partition, charges);
            request.setAttribute(RateLimitFilter.DECISION_ATTRIBUTE, budgets);
            if (set != null) {
                request.setAttribute(RateLimitFilter.POLICY_SET_ATTRIBUTE, set);
            }
            writeHeaders(response, budgets, set);
            return Admission.FREE;
        }
        Decision decision = settings.store().decide(partition, charges);
        return admit(decision, set, request, response) ? new Charged(partition, spent(charges, decision), set) : null;
    }

    /**
     * The charges an allowed request spent: all of them but the shadow policies' would-be
     * refusals, which spent nothing and so must not be given back by a refund.
     */
    private static List<Charge> spent(List<Charge> charges, Decision allowed) {
        if (!ShadowPolicies.any(charges)) {
            return charges;
        }
        List<Charge> spent = new ArrayList<>(charges.size());
        for (int i = 0; i < charges.size(); i++) {
            if (!ShadowPolicies.wouldHaveRefused(allowed.states().get(i))) {
                spent.add(charges.get(i));
            }
        }
        return spent;
    }

    /**
     * Replaces the policies, versions and plans at once: the requests after it decide under the new
     * ones, a request under way keeps the ones it read (its refund gives back what it was charged).
     */
    public void reconfigure(List<Policy> policies, @Nullable PolicyVersions versions, Plans plans) {
        RateLimitSettings old = settings;
        settings = new RateLimitSettings(
                old.store(),
                policies,
                plans,
                old.facts(),
                old.exempt(),
                old.retryAfterJitter(),
                old.problemTypeBase(),
                versions);
    }

    /** Writes the headers and, for a refusal, the whole answer; whether the request may run. */
    private boolean admit(
            Decision decision, @Nullable PolicySet set, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        List<HeaderField> fields = headers.render(decision);
        long wait = writeHeaders(response, fields, set);
        return switch (decision) {
            case Decision.Allowed allowed -> true;
            case Decision.Rejected rejected -> {
                Policy policy = rejected.refusedBy().policy();
                Map<String, Object> members = new LinkedHashMap<>();
                members.put("policy", policy.name());
                members.put("retry_after", wait);
                refuse(
                        request,
                        response,
                        ProblemType.RATE_LIMITED,
                        policy.name(),
                        wait,
                        withSet(fields, set),
                        "Rate-limit policy '" + policy.name() + "' allows "
                                + rejected.refusedBy().limit() + " per " + window(policy)
                                + "; retry in " + wait + " s.",
                        members);
                yield false;
            }
            case Decision.Unavailable unavailable -> {
                refuse(
                        request,
                        response,
                        ProblemType.RATE_LIMIT_UNAVAILABLE,
                        unavailable.failedClosed().name(),
                        wait,
                        withSet(fields, set),
                        "Rate limits cannot be checked right now and"
                                + " policy '" + unavailable.failedClosed().name()
                                + "' refuses unchecked requests; retry in "
                                + wait + " s.",
                        Map.of("retry_after", wait));
                yield false;
            }
        };
    }

    /**
     * Writes a refusal. The request's body, which nobody will read, is read and dropped first (up
     * to {@value #DRAIN_LIMIT} bytes), so that the connection can carry the client's next request;
     * a longer body closes the connection, said in the answer ({@code Connection: close}). Left
     * unread, the server closed the connection after answering without saying so, and a client
     * that sent its retry on it got no answer at all.
     */
    private void refuse(
            HttpServletRequest request,
            HttpServletResponse response,
            ProblemType type,
            String policy,
            long wait,
            List<HeaderField> fields,
            String detail,
            Map<String, Object> members)
            throws IOException {
        BoundedBody.release(request, response, DRAIN_LIMIT);
        if (refusals != null) {
            refusals.write(
                    request,
                    response,
                    new RateLimitRefusal(
                            type, type.type(settings.problemTypeBase()), detail, policy, wait, members, fields));
            return;
        }
        byte[] body = ProblemJson.render(type, settings.problemTypeBase(), detail, members);
        response.setStatus(type.status());
        response.setContentType(ProblemJson.MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /**
     * Sets the decision's headers and those of the set it was counted under (rendered once per
     * set, copied by index: nothing allocated for them); returns its {@code Retry-After} in
     * seconds (0 when allowed).
     */
    private long writeHeaders(HttpServletResponse response, Decision decision, @Nullable PolicySet set) {
        return writeHeaders(response, headers.render(decision), set);
    }

    private static long writeHeaders(HttpServletResponse response, List<HeaderField> fields, @Nullable PolicySet set) {
        long retryAfter = 0;
        for (HeaderField field : fields) {
            response.setHeader(field.name(), field.value());
            if (field.name().equals(RateLimitHeaders.RETRY_AFTER)) {
                retryAfter = Long.parseLong(field.value());
            }
        }
        if (set != null) {
            List<HeaderField> setHeaders = set.headers();
            for (int i = 0; i < setHeaders.size(); i++) {
                response.setHeader(setHeaders.get(i).name(), setHeaders.get(i).value());
            }
        }
        return retryAfter;
    }

    /** A refusal's headers with those of its set: what an integration that answers it sets again. */
    private static List<HeaderField> withSet(List<HeaderField> fields, @Nullable PolicySet set) {
        if (set == null) {
            return fields;
        }
        List<HeaderField> all = new ArrayList<>(fields);
        all.addAll(set.headers());
        return all;
    }

    /** "10 s", "1 h", "1.5 s": how a window reads in a problem's detail. */
    static String window(Policy policy) {
        Duration w = policy.window();
        if (w.toMillis() % 3_600_000 == 0) {
            return w.toHours() + " h";
        }
        if (w.toMillis() % 60_000 == 0) {
            return w.toMinutes() + " min";
        }
        return w.toMillis() % 1000 == 0 ? w.toSeconds() + " s" : w.toMillis() + " ms";
    }

    /** What an admitted request spent, refundable once. */
    private final class Charged implements Admission {
        private final String partition;
        private final List<Charge> charges;
        private final @Nullable PolicySet set;
        private boolean refunded;

        Charged(String partition, List<Charge> charges, @Nullable PolicySet set) {
            this.partition = partition;
            this.charges = charges;
            this.set = set;
        }

        @Override
        public void refund(HttpServletResponse response) {
            if (refunded) {
                return;
            }
            refunded = true;
            writeHeaders(response, settings.store().refund(partition, charges), set);
        }
    }
}

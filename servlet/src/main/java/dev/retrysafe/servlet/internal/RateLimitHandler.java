package dev.retrysafe.servlet.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.HeaderField;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.RateLimitHeaders;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.ShadowPolicies;
import dev.retrysafe.servlet.ProblemType;
import dev.retrysafe.servlet.RateLimitFilter;
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

    private final RateLimitSettings settings;
    private final RateLimitHeaders headers;

    /** A handler with {@code settings}. */
    public RateLimitHandler(RateLimitSettings settings) {
        this.settings = settings;
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
        RequestFacts facts = settings.facts().apply(request);
        List<Charge> charges = facts == null ? List.of() : settings.plans().chargesFor(settings.policies(), facts);
        if (facts == null || charges.isEmpty()) {
            return Admission.FREE;
        }
        String partition = facts.partition();
        if (settings.exempt().test(request)) {
            Decision budgets = settings.store().peek(partition, charges);
            request.setAttribute(RateLimitFilter.DECISION_ATTRIBUTE, budgets);
            writeHeaders(response, budgets);
            return Admission.FREE;
        }
        Decision decision = settings.store().decide(partition, charges);
        return admit(decision, request, response) ? new Charged(partition, spent(charges, decision)) : null;
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

    /** Writes the headers and, for a refusal, the whole answer; whether the request may run. */
    private boolean admit(Decision decision, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        long wait = writeHeaders(response, decision);
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
            String detail,
            Map<String, Object> members)
            throws IOException {
        BoundedBody.release(request, response, DRAIN_LIMIT);
        byte[] body = ProblemJson.render(type, settings.problemTypeBase(), detail, members);
        response.setStatus(type.status());
        response.setContentType(ProblemJson.MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** Sets the decision's headers; returns its {@code Retry-After} in seconds (0 when allowed). */
    private long writeHeaders(HttpServletResponse response, Decision decision) {
        long retryAfter = 0;
        for (HeaderField field : headers.render(decision)) {
            response.setHeader(field.name(), field.value());
            if (field.name().equals(RateLimitHeaders.RETRY_AFTER)) {
                retryAfter = Long.parseLong(field.value());
            }
        }
        return retryAfter;
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
        private boolean refunded;

        Charged(String partition, List<Charge> charges) {
            this.partition = partition;
            this.charges = charges;
        }

        @Override
        public void refund(HttpServletResponse response) {
            if (refunded) {
                return;
            }
            refunded = true;
            writeHeaders(response, settings.store().refund(partition, charges));
        }
    }
}

package dev.retrysafe.servlet.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.ConcurrencyDecision;
import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.ConcurrencySlot;
import dev.retrysafe.ratelimit.ConcurrencyStore;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.DecisionBuffer;
import dev.retrysafe.ratelimit.HeaderField;
import dev.retrysafe.ratelimit.Permit;
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
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletException;
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
    private final DecisionBuffers buffers = DecisionBuffers.forThisMachine();
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
     * whole. Once the rate policies allow it, it takes a slot under every concurrency limit that
     * applies; a full one refuses it ({@code 429} {@link ProblemType#CONCURRENCY_LIMITED}) and the
     * rate policies' charge is given back, so a refusal spends nothing. A request no policy
     * applies to, or an exempt one (its budgets are only looked at and left on it under
     * {@link RateLimitFilter#DECISION_ATTRIBUTE}), is admitted free and takes no slot.
     *
     * @return what the request spent and holds; {@code null} when it was refused and answered
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
        List<ConcurrencySlot> slots = slotsFor(settings, facts);
        if (charges.isEmpty() && slots.isEmpty()) {
            return Admission.FREE;
        }
        String partition = facts.partition();
        if (settings.exempt().test(request)) {
            if (!charges.isEmpty()) {
                Decision budgets = settings.store().peek(partition, charges);
                request.setAttribute(RateLimitFilter.DECISION_ATTRIBUTE, budgets);
                if (set != null) {
                    request.setAttribute(RateLimitFilter.POLICY_SET_ATTRIBUTE, set);
                }
                writeHeaders(response, budgets, set);
            }
            return Admission.FREE;
        }
        List<Charge> spent = charges;
        if (!charges.isEmpty()) {
            DecisionBuffer decision = buffers.take();
            List<HeaderField> fields;
            Decision refusal = null;
            try {
                settings.store().decide(partition, charges, decision);
                fields = headers.render(decision);
                if (decision.outcome() == DecisionBuffer.Outcome.ALLOWED) {
                    spent = spent(charges, decision);
                } else {
                    refusal = decision.toDecision();
                }
            } finally {
                // before any I/O: a refusal reads and drops the request's body, which may take long
                buffers.giveBack(decision);
            }
            if (!admit(refusal, fields, set, request, response)) {
                return null;
            }
        }
        if (slots.isEmpty()) {
            return new Charged(partition, spent, set, null);
        }
        ConcurrencyStore concurrency = java.util.Objects.requireNonNull(settings.concurrencyStore());
        return switch (concurrency.acquire(partition, slots)) {
            case ConcurrencyDecision.Acquired acquired -> new Charged(partition, spent, set, acquired.permit());
            case ConcurrencyDecision.Refused refused -> {
                giveBack(response, partition, spent, set);
                ConcurrencyPolicy policy = refused.refusedBy().policy();
                long wait = retryAfter(settings, response, refused.retryAfterSeconds());
                Map<String, Object> members = new LinkedHashMap<>();
                members.put("policy", policy.name());
                members.put("limit", policy.limit());
                members.put("retry_after", wait);
                refuse(
                        request,
                        response,
                        ProblemType.CONCURRENCY_LIMITED,
                        policy.name(),
                        wait,
                        List.of(new HeaderField(RateLimitHeaders.RETRY_AFTER, Long.toString(wait))),
                        "Concurrency-limit policy '" + policy.name() + "' allows " + policy.limit()
                                + " requests in flight at once; retry in " + wait + " s, or send fewer at once.",
                        members);
                yield null;
            }
            case ConcurrencyDecision.Unavailable unavailable -> {
                giveBack(response, partition, spent, set);
                long wait = retryAfter(settings, response, unavailable.retryAfterSeconds());
                refuseUnchecked(
                        request,
                        response,
                        unavailable.failedClosed().name(),
                        wait,
                        List.of(new HeaderField(RateLimitHeaders.RETRY_AFTER, Long.toString(wait))));
                yield null;
            }
        };
    }

    /**
     * The charges an allowed request spent: all of them but the shadow policies' would-be
     * refusals, which spent nothing and so must not be given back by a refund.
     */
    private static List<Charge> spent(List<Charge> charges, DecisionBuffer allowed) {
        if (!ShadowPolicies.any(charges)) {
            return charges;
        }
        List<Charge> spent = new ArrayList<>(charges.size());
        for (int i = 0; i < charges.size(); i++) {
            if (!allowed.wouldHaveRefused(i)) {
                spent.add(charges.get(i));
            }
        }
        return spent;
    }

    /**
     * Replaces the policies, versions, plans and concurrency limits ({@code null}: kept) at once:
     * the requests after it decide under the new ones, a request under way keeps the ones it read
     * (its refund gives back what it was charged, its slots are released where they were taken).
     */
    public synchronized void reconfigure(
            List<Policy> policies,
            @Nullable PolicyVersions versions,
            Plans plans,
            @Nullable List<ConcurrencyPolicy> concurrencyPolicies) {
        if (concurrencyPolicies != null && !concurrencyPolicies.isEmpty() && settings.concurrencyStore() == null) {
            throw new IllegalStateException("concurrency policies need a concurrency store, which this filter has not");
        }
        RateLimitSettings old = settings;
        settings = new RateLimitSettings(
                old.store(),
                policies,
                plans,
                old.facts(),
                old.exempt(),
                old.retryAfterJitter(),
                old.problemTypeBase(),
                versions,
                old.concurrencyStore(),
                concurrencyPolicies == null ? old.concurrencyPolicies() : concurrencyPolicies);
    }

    /**
     * Runs {@code next} for a request {@link #admit} let through, and gives back its concurrency
     * slots once the request has ended in any way: when {@code next} returns or throws (a client
     * gone mid-answer surfaces as one or the other), or, for a request that went asynchronous,
     * when it completes, fails or times out.
     */
    public static void proceed(HttpServletRequest request, Admission admission, Next next)
            throws IOException, ServletException {
        if (!(admission instanceof Charged charged) || charged.permit == null) {
            next.run();
            return;
        }
        boolean releaseNow = true;
        try {
            next.run();
            releaseNow = !releaseWhenAsyncEnds(request, admission);
        } finally {
            if (releaseNow) {
                admission.release();
            }
        }
    }

    /** Whether {@code request} went asynchronous and will release {@code admission} when it ends. */
    private static boolean releaseWhenAsyncEnds(HttpServletRequest request, Admission admission) {
        if (!request.isAsyncStarted()) {
            return false;
        }
        try {
            request.getAsyncContext().addListener(new ReleaseWhenDone(admission));
            return true;
        } catch (IllegalStateException e) {
            return false; // it completed meanwhile: release now
        }
    }

    /** What {@link #proceed} runs. */
    @FunctionalInterface
    public interface Next {
        /** Lets the request go on to the next step. */
        void run() throws IOException, ServletException;
    }

    private static List<ConcurrencySlot> slotsFor(RateLimitSettings settings, RequestFacts facts) {
        List<ConcurrencyPolicy> policies = settings.concurrencyPolicies();
        if (policies.isEmpty()) {
            return List.of();
        }
        List<ConcurrencySlot> slots = new ArrayList<>(policies.size());
        for (ConcurrencyPolicy policy : policies) {
            ConcurrencySlot slot = policy.slotFor(facts);
            if (slot != null) {
                slots.add(slot);
            }
        }
        return slots;
    }

    /** The rate policies' charge of a request the concurrency limits refused, given back. */
    private void giveBack(
            HttpServletResponse response, String partition, List<Charge> charges, @Nullable PolicySet set) {
        if (!charges.isEmpty()) {
            writeHeaders(response, settings.store().refund(partition, charges), set);
        }
    }

    /** Sets {@code Retry-After} to {@code seconds} plus the jitter; returns what it set. */
    private static long retryAfter(RateLimitSettings settings, HttpServletResponse response, long seconds) {
        long jitter = settings.retryAfterJitter().toSeconds();
        long wait = seconds
                + (jitter == 0
                        ? 0
                        : java.util.concurrent.ThreadLocalRandom.current().nextLong(jitter + 1));
        response.setHeader(RateLimitHeaders.RETRY_AFTER, Long.toString(wait));
        return wait;
    }

    /** Replaces only the concurrency limits (see {@link #reconfigure}). */
    public synchronized void reconfigureConcurrency(List<ConcurrencyPolicy> concurrencyPolicies) {
        RateLimitSettings now = settings;
        reconfigure(now.policies(), now.versions(), now.plans(), concurrencyPolicies);
    }

    /**
     * Writes the headers ({@code fields}, rendered from the decision, and the set's) and, for a
     * refusal, the whole answer; whether the request may run.
     *
     * @param refusal the decision when it refused the request; {@code null} when it allowed it
     *                (its buffer went back to the pool: nothing but the header strings allocated)
     */
    private boolean admit(
            @Nullable Decision refusal,
            List<HeaderField> fields,
            @Nullable PolicySet set,
            HttpServletRequest request,
            HttpServletResponse response)
            throws IOException {
        long wait = writeHeaders(response, fields, set);
        if (refusal == null) {
            return true;
        }
        return switch (refusal) {
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
                refuseUnchecked(request, response, unavailable.failedClosed().name(), wait, withSet(fields, set));
                yield false;
            }
        };
    }

    /** The {@code 503} of a fail-closed policy (rate or concurrency) whose store cannot be reached. */
    private void refuseUnchecked(
            HttpServletRequest request,
            HttpServletResponse response,
            String policy,
            long wait,
            List<HeaderField> fields)
            throws IOException {
        refuse(
                request,
                response,
                ProblemType.RATE_LIMIT_UNAVAILABLE,
                policy,
                wait,
                fields,
                "Rate limits cannot be checked right now and policy '" + policy
                        + "' refuses unchecked requests; retry in " + wait + " s.",
                Map.of("retry_after", wait));
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
        private final @Nullable Permit permit;
        private boolean refunded;

        Charged(String partition, List<Charge> charges, @Nullable PolicySet set, @Nullable Permit permit) {
            this.partition = partition;
            this.charges = charges;
            this.set = set;
            this.permit = permit;
        }

        @Override
        public void refund(HttpServletResponse response) {
            if (refunded || charges.isEmpty()) {
                return;
            }
            refunded = true;
            writeHeaders(response, settings.store().refund(partition, charges), set);
        }

        @Override
        public void release() {
            if (permit != null) {
                permit.release();
            }
        }
    }
    /** Releases an asynchronous request's slots when it ends, however it ends. */
    private record ReleaseWhenDone(Admission admission) implements AsyncListener {
        @Override
        public void onComplete(AsyncEvent event) {
            admission.release();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            admission.release();
        }

        @Override
        public void onError(AsyncEvent event) {
            admission.release();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // a new asynchronous cycle drops its listeners: stay for its end
            event.getAsyncContext().addListener(this);
        }
    }
}

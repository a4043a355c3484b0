package dev.retrysafe.ratelimit;

import java.util.List;

/**
 * Where counters live (SPI): {@code InMemoryRateLimitStore} here, Redis in
 * {@code retrysafe-ratelimit-redis}. Every store gives the same decisions for the same sequence
 * of charges at the same times (the arithmetic is specified in {@code docs/rate-limits.md});
 * the contract tests check it. Implementations are threadsafe.
 */
public interface RateLimitStore extends AutoCloseable {

    /**
     * Checks every charge and, only if all of them fit, spends all of them, atomically with
     * respect to every other decision on the same keys (across processes for shared stores).
     * Charges of {@linkplain PolicyMode#SHADOW shadow} policies take no part in that: they are
     * decided afterwards, each on its own, only when the others allowed the request, and never
     * refuse it ({@link ShadowPolicies}).
     *
     * @param partition the request's partition ({@link RequestFacts#partition()}); every key of
     *                  one request lives in it
     * @param charges   one per applicable policy, at most one per policy; may be empty
     * @return {@link Decision.Allowed} with every state after charging (a shadow policy's
     *         would-be refusal included, uncharged), {@link Decision.Rejected} naming the first
     *         enforced policy (in the given order) that refused, or
     *         {@link Decision.Unavailable} when the store is unreachable and a fail-closed policy
     *         applies; never throws for an unreachable store
     */
    Decision decide(String partition, List<Charge> charges);

    /**
     * {@link #decide(String, List)} into {@code into} instead of a new {@link Decision}: the
     * same decision, the same states, for a hot path that renders headers from the buffer and
     * would rather allocate nothing. This default fills the buffer from {@code decide}; the
     * in-memory store decides into it directly and, with a buffer reused for its decisions,
     * allocates nothing.
     *
     * @param into emptied, then filled with the decision ({@link DecisionBuffer#toDecision()}
     *             gives back what {@code decide} would have returned)
     */
    default void decide(String partition, List<Charge> charges, DecisionBuffer into) {
        into.set(decide(partition, charges));
    }

    /**
     * The states {@link #decide} would report if it charged nothing: for {@code GET
     * /v1/rate_limit} and for answers that do not spend budget (idempotent replays). Returns
     * {@link Decision.Allowed} (or {@link Decision.Unavailable} when unreachable and fail-closed)
     * with {@code retryAfterMicros} per state as if each charge's cost were requested.
     */
    Decision peek(String partition, List<Charge> charges);

    /**
     * Gives back charges that {@link #decide} spent, for an allowed request that then turned out
     * to cost nothing (an idempotent replay, a {@code 409} for a key in use): every charge's state
     * moves back by its cost, as far as the state still holds it and never past a full budget (an
     * absent key's), atomically like {@code decide}. A key that is absent stays absent; time that
     * has already given the units back is not given again. The arithmetic is in
     * {@code docs/rate-limits.md} ("Refunds"); the sliding window's is exact only within the
     * window of the charge.
     *
     * @param partition the request's partition, as given to {@link #decide}
     * @param charges   the charges to give back, as given to {@code decide}; may be empty
     * @return the states after refunding, as {@link #peek} then reports them
     *         ({@link Decision.Allowed}, or {@link Decision.Unavailable} when the store is
     *         unreachable and a fail-closed policy applies, in which case nothing was given back);
     *         never throws for an unreachable store
     */
    Decision refund(String partition, List<Charge> charges);

    /** Releases connections and background threads; decisions after closing are undefined. */
    @Override
    void close();
}

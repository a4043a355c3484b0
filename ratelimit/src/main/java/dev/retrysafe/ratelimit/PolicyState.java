package dev.retrysafe.ratelimit;

/**
 * One key's budget under one policy, right after a decision: what the headers show.
 *
 * @param policy           the policy
 * @param key              the scope's key
 * @param limit            the quota (as scaled by the plan)
 * @param remaining        units left now, between 0 and {@code limit}
 * @param resetMicros      microseconds from {@code nowMicros} until the budget is whole again
 *                         (GCRA, token bucket) or the current window ends (windowed algorithms)
 * @param retryAfterMicros microseconds until this policy would allow the request's cost; 0 when
 *                         it allows it now
 * @param nowMicros        the store's time of the decision, microseconds since the epoch
 * @param known            false when the store could not be reached and the policy failed open:
 *                         the figures are then the policy's, not the key's
 * @param local            true when the shared store could not be reached and this process
 *                         counted instead ({@link FailMode#LOCAL}): the figures are this
 *                         instance's share of the budget, not the key's whole budget
 */
public record PolicyState(
        Policy policy,
        String key,
        long limit,
        long remaining,
        long resetMicros,
        long retryAfterMicros,
        long nowMicros,
        boolean known,
        boolean local) {

    /** A state counted by the store itself (not {@linkplain #local() locally in its stead}). */
    public PolicyState(
            Policy policy,
            String key,
            long limit,
            long remaining,
            long resetMicros,
            long retryAfterMicros,
            long nowMicros,
            boolean known) {
        this(policy, key, limit, remaining, resetMicros, retryAfterMicros, nowMicros, known, false);
    }

    /** The state reported for a policy whose store was unreachable: nothing known about the key. */
    public static PolicyState unknown(Policy policy, String key, long nowMicros) {
        return new PolicyState(policy, key, policy.quota(), policy.quota(), 0, 0, nowMicros, false);
    }

    /** Units used: {@code limit - remaining}. */
    public long used() {
        return limit - remaining;
    }

    /** Seconds until the budget is whole again, rounded up. */
    public long resetSeconds() {
        return ceilSeconds(resetMicros);
    }

    /** When the budget is whole again, in UTC epoch seconds (rounded up). */
    public long resetEpochSeconds() {
        return ceilSeconds(nowMicros + resetMicros);
    }

    /** Seconds until this policy would allow the request, rounded up; 0 when it allows it now. */
    public long retryAfterSeconds() {
        return ceilSeconds(retryAfterMicros);
    }

    private static long ceilSeconds(long micros) {
        return Math.ceilDiv(micros, 1_000_000L);
    }
}

package dev.retrysafe.bench.herd;

import dev.retrysafe.client.RetryBudget;
import dev.retrysafe.client.RetryPolicy;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * How a simulated client waits before retry {@code n} (0 for the first) after a {@code Retry-After},
 * and where its retry budget comes from.
 *
 * @param name the name in the report
 * @param waits the wait rule
 * @param budgets a budget per client ({@code perClient}) or one for all
 * @param perClient whether every client has its own budget
 */
record Strategy(String name, WaitRule waits, Supplier<RetryBudget> budgets, boolean perClient) {

    /** A wait rule: {@code retryAfter} is what the server asked, {@code n} the retry's number. */
    @FunctionalInterface
    interface WaitRule {
        Duration wait(int n, Duration retryAfter, RandomGenerator random);
    }

    /** Exponential backoff without randomness, waiting exactly {@code Retry-After} when it is longer. */
    static Strategy noJitter(RetryPolicy p) {
        return new Strategy("no jitter", (n, ra, r) -> max(ra, p.backoffBound(n)), RetryBudget::unlimited, true);
    }

    /** AWS's "equal jitter": half the backoff fixed, half random; {@code Retry-After} as a plain floor. */
    static Strategy equalJitter(RetryPolicy p) {
        return new Strategy(
                "equal jitter",
                (n, ra, r) -> {
                    long v = p.backoffBound(n).toNanos();
                    return max(ra, Duration.ofNanos(v / 2 + r.nextLong(v / 2 + 1)));
                },
                RetryBudget::unlimited,
                true);
    }

    /** Full jitter under a plain floor: {@code max(Retry-After, random(0, backoff))}. */
    static Strategy fullJitterPlainFloor(RetryPolicy p) {
        return new Strategy(
                "full jitter, max(Retry-After, jitter)",
                (n, ra, r) ->
                        max(ra, Duration.ofNanos(r.nextLong(p.backoffBound(n).toNanos() + 1))),
                RetryBudget::unlimited,
                true);
    }

    /** Full jitter added to {@code Retry-After}: {@code Retry-After + random(0, backoff)}. */
    static Strategy fullJitterOnTop(RetryPolicy p) {
        return new Strategy(
                "Retry-After + full jitter",
                (n, ra, r) -> ra.plusNanos(r.nextLong(p.backoffBound(n).toNanos() + 1)),
                RetryBudget::unlimited,
                true);
    }

    /** The client module's rule ({@link RetryPolicy#waitBefore}) with a budget per client. */
    static Strategy ours(RetryPolicy p) {
        return new Strategy("ours, budget per client", p::waitBefore, RetryBudget::defaults, true);
    }

    /** The client module's rule with one budget for all calls, as when they share one client. */
    static Strategy oursSharedBudget(RetryPolicy p) {
        return new Strategy("ours, one shared budget", p::waitBefore, RetryBudget::defaults, false);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}

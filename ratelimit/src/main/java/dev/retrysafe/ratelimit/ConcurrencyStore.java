package dev.retrysafe.ratelimit;

import java.util.List;

/**
 * Where concurrency limits count the requests in flight (SPI): {@link InMemoryConcurrencyStore}
 * here, Redis in {@code retrysafe-ratelimit-redis}. The contract tests check that every store
 * admits the same requests. Implementations are threadsafe.
 */
public interface ConcurrencyStore extends AutoCloseable {

    /**
     * Takes a slot under every limit of {@code slots}, or none of them: atomically with respect to
     * every other acquisition of the same keys (across processes for shared stores), never more
     * than a limit's requests in flight for one key.
     *
     * @param partition the request's partition ({@link RequestFacts#partition()}); every key of
     *                  one request lives in it
     * @param slots     at most one per limit; may be empty
     * @return {@link ConcurrencyDecision.Acquired} with a permit to release when the request ends,
     *         {@link ConcurrencyDecision.Refused} naming the first limit (in the given order) that
     *         is full, or {@link ConcurrencyDecision.Unavailable} when the store is unreachable and
     *         a fail-closed limit applies; never throws for an unreachable store
     */
    ConcurrencyDecision acquire(String partition, List<ConcurrencySlot> slots);

    /**
     * How many requests hold a slot of {@code slot}'s key now (leases run out included), for
     * {@code GET /v1/rate_limit}, metrics and tests; {@code -1} when the store cannot be reached.
     */
    int inFlight(String partition, ConcurrencySlot slot);

    /** Releases connections and background threads; permits held then are released by their leases. */
    @Override
    void close();
}

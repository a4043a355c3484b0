package dev.retrysafe.bench.herd;

import dev.retrysafe.client.RetryBudget;
import java.time.Duration;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * One run of the herd in virtual time: {@code clients} clients were rejected at t = 0 with the
 * same {@code Retry-After}; each comes back after its strategy's wait. The server admits through a
 * token bucket of {@code ratePerSecond} with a burst of {@code burst}, and rejects the rest with an
 * integer {@code Retry-After} of at least 1 s (the time until its next token, rounded up), as the
 * Retrysafe server does. A client gives up when its attempts or its budget are used up. Arrivals
 * are counted per {@value #BUCKET_MILLIS} ms. Not threadsafe; deterministic for a seed.
 */
final class Herd {

    static final int BUCKET_MILLIS = 100;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /**
     * What a run measured.
     *
     * @param arrivals requests per 100 ms bucket, from t = 0 (the initial rejection not counted)
     * @param retries requests sent after the initial rejection
     * @param rejectedRetries of those, the ones rejected again
     * @param served clients that got through
     * @param gaveUp clients that stopped (attempts or budget used up)
     * @param lastArrivalMillis when the last request arrived
     */
    record Result(int[] arrivals, long retries, long rejectedRetries, int served, int gaveUp, long lastArrivalMillis) {

        /** The most arrivals in one bucket. */
        int peak() {
            int p = 0;
            for (int a : arrivals) {
                p = Math.max(p, a);
            }
            return p;
        }

        /** The mean arrivals per bucket, from the first bucket with an arrival to the last. */
        double mean() {
            int first = -1;
            int last = -1;
            for (int i = 0; i < arrivals.length; i++) {
                if (arrivals[i] > 0) {
                    last = i;
                    if (first < 0) {
                        first = i;
                    }
                }
            }
            return first < 0 ? 0 : (double) retries / (last - first + 1);
        }
    }

    private record Arrival(long at, int client) implements Comparable<Arrival> {
        @Override
        public int compareTo(Arrival o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Integer.compare(client, o.client);
        }
    }

    private Herd() {}

    static Result run(
            Strategy strategy,
            int clients,
            Duration retryAfter,
            int maxAttempts,
            int ratePerSecond,
            int burst,
            long seed,
            Duration horizon) {
        SplittableRandom random = new SplittableRandom(seed);
        RetryBudget shared = strategy.budgets().get();
        RetryBudget[] budgets = new RetryBudget[clients];
        int[] attempts = new int[clients];
        int[] retriesMade = new int[clients];
        PriorityQueue<Arrival> queue = new PriorityQueue<>();
        for (int c = 0; c < clients; c++) {
            budgets[c] = strategy.perClient() ? strategy.budgets().get() : shared;
            budgets[c].recordCall();
            attempts[c] = 1; // the rejected one, at t = 0
        }
        int served = 0;
        int gaveUp = 0;
        for (int c = 0; c < clients; c++) {
            if (schedule(strategy, c, 0, retryAfter, budgets, retriesMade, random, queue)) {
                continue;
            }
            gaveUp++;
        }
        int[] arrivals = new int[(int) (horizon.toMillis() / BUCKET_MILLIS) + 1];
        double tokens = burst;
        long lastRefill = 0;
        long retries = 0;
        long rejected = 0;
        long lastArrival = 0;
        while (!queue.isEmpty()) {
            Arrival a = queue.poll();
            long bucket = a.at / (BUCKET_MILLIS * 1_000_000L);
            if (bucket < arrivals.length) {
                arrivals[(int) bucket]++;
            }
            retries++;
            lastArrival = a.at;
            attempts[a.client]++;
            tokens = Math.min(burst, tokens + (a.at - lastRefill) * (double) ratePerSecond / NANOS_PER_SECOND);
            lastRefill = a.at;
            if (tokens >= 1) {
                tokens -= 1;
                served++;
                continue;
            }
            rejected++;
            long secondsToToken = (long) Math.ceil((1 - tokens) / ratePerSecond);
            Duration serverRetryAfter = Duration.ofSeconds(Math.max(1, secondsToToken));
            if (attempts[a.client] >= maxAttempts
                    || !schedule(strategy, a.client, a.at, serverRetryAfter, budgets, retriesMade, random, queue)) {
                gaveUp++;
            }
        }
        return new Result(arrivals, retries, rejected, served, gaveUp, lastArrival / 1_000_000L);
    }

    /** Plans the client's next retry; false when its budget refuses. */
    private static boolean schedule(
            Strategy strategy,
            int client,
            long now,
            Duration retryAfter,
            RetryBudget[] budgets,
            int[] retriesMade,
            SplittableRandom random,
            PriorityQueue<Arrival> queue) {
        if (!budgets[client].tryAcquireRetry()) {
            return false;
        }
        Duration wait = strategy.waits().wait(retriesMade[client]++, retryAfter, random);
        queue.add(new Arrival(now + wait.toNanos(), client));
        return true;
    }
}

package dev.retrysafe.server.streams;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The authenticated streams of each account on this instance: the per-account limit, and the
 * accounts whose news this instance must follow (signals about other accounts are dropped at
 * once). Threadsafe.
 */
final class Admissions {

    private final int maxPerAccount;
    private final Map<String, Integer> open = new ConcurrentHashMap<>();

    Admissions(int maxPerAccount) {
        this.maxPerAccount = maxPerAccount;
    }

    /** Admits one more stream of {@code accountId}; false if it already has the most allowed. */
    boolean admit(String accountId) {
        boolean[] admitted = new boolean[1];
        open.compute(accountId, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= maxPerAccount) {
                return n;
            }
            admitted[0] = true;
            return now + 1;
        });
        return admitted[0];
    }

    /** One admitted stream of {@code accountId} closed. */
    void release(String accountId) {
        open.computeIfPresent(accountId, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** Whether {@code accountId} has a stream here. */
    boolean watched(String accountId) {
        return open.containsKey(accountId);
    }
}

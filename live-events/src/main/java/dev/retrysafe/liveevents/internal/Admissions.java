package dev.retrysafe.liveevents.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The authenticated streams of each account: the per-account limit, and the accounts whose news
 * this instance must follow (signals about other accounts are dropped at once). In the embedded
 * mode (one instance) the limit is counted here, in memory; on PostgreSQL it is counted by the
 * {@link ConnectionLeases} that every instance shares, and this instance keeps only its own
 * streams in memory. Threadsafe.
 */
final class Admissions implements AutoCloseable {

    /** What asking for a place came to. */
    enum Decision {
        /** The stream has a place. */
        ADMITTED,
        /** The account holds the most streams allowed. */
        FULL,
        /** The shared count could not be read (database unreachable). */
        UNAVAILABLE
    }

    private final int maxPerAccount;
    private final @Nullable ConnectionLeases shared;
    private final Map<String, Integer> open = new ConcurrentHashMap<>();

    /** At most {@code maxPerAccount} streams per account, counted by {@code shared} or, when it is null, here. */
    Admissions(int maxPerAccount, @Nullable ConnectionLeases shared) {
        this.maxPerAccount = maxPerAccount;
        this.shared = shared;
    }

    /** Admits stream {@code connectionId} of {@code accountId}, unless the account has the most allowed. */
    Decision admit(String accountId, String connectionId) {
        if (shared != null) {
            Decision decision = shared.admit(accountId, connectionId);
            if (decision == Decision.ADMITTED) {
                open.merge(accountId, 1, Integer::sum);
            }
            return decision;
        }
        boolean[] admitted = new boolean[1];
        open.compute(accountId, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= maxPerAccount) {
                return n;
            }
            admitted[0] = true;
            return now + 1;
        });
        return admitted[0] ? Decision.ADMITTED : Decision.FULL;
    }

    /** Admitted stream {@code connectionId} of {@code accountId} closed (or lost its place). */
    void release(String accountId, String connectionId) {
        open.computeIfPresent(accountId, (k, n) -> n <= 1 ? null : n - 1);
        if (shared != null) {
            shared.release(connectionId);
        }
    }

    /** Whether {@code accountId} has a stream here. */
    boolean watched(String accountId) {
        return open.containsKey(accountId);
    }

    /** Stops the shared count's heartbeat and gives back what it still holds. */
    @Override
    public void close() {
        if (shared != null) {
            shared.close();
        }
    }
}

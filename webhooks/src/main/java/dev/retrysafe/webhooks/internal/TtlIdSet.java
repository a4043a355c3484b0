package dev.retrysafe.webhooks.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded set of ids, each remembered for a time to live, kept in the order first seen so that
 * both expiry and eviction look at the head only. A {@link ReentrantLock} rather than
 * {@code synchronized}: on Java 21 a virtual thread blocked on a monitor pins its carrier.
 * Threadsafe.
 */
public final class TtlIdSet {

    private final long ttlMillis;
    private final int maxEntries;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    // id -> first seen (epoch millis); insertion order is time order, give or take clock steps
    private final LinkedHashMap<String, Long> seen = new LinkedHashMap<>();

    /** A set remembering ids for {@code ttl}, at most {@code maxEntries} of them. */
    public TtlIdSet(Duration ttl, int maxEntries, Clock clock) {
        this.ttlMillis = checkTtl(ttl).toMillis();
        this.maxEntries = maxEntries;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Rejects a time to live that is not positive or is over a year. */
    public static Duration checkTtl(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(Duration.ofDays(366)) > 0) {
            throw new IllegalArgumentException("ttl must be positive and at most 366 days, was " + ttl);
        }
        return ttl;
    }

    /** Adds {@code id}; true if it was not held (or had expired). */
    public boolean add(String id) {
        long now = clock.millis();
        lock.lock();
        try {
            dropExpired(now);
            Long firstSeen = seen.get(id);
            if (firstSeen != null) {
                if (!expired(firstSeen, now)) {
                    return false;
                }
                // expired but not at the head (the clock stepped back): re-add at the tail
                seen.remove(id);
            }
            if (seen.size() >= maxEntries) {
                Iterator<String> oldest = seen.keySet().iterator();
                oldest.next();
                oldest.remove();
            }
            seen.put(id, now);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Removes {@code id} if held. */
    public void remove(String id) {
        lock.lock();
        try {
            seen.remove(id);
        } finally {
            lock.unlock();
        }
    }

    /** Ids held now. */
    public int size() {
        lock.lock();
        try {
            return seen.size();
        } finally {
            lock.unlock();
        }
    }

    private void dropExpired(long now) {
        Iterator<Map.Entry<String, Long>> entries = seen.entrySet().iterator();
        while (entries.hasNext() && expired(entries.next().getValue(), now)) {
            entries.remove();
        }
    }

    private boolean expired(long firstSeen, long now) {
        return now - firstSeen >= ttlMillis;
    }
}

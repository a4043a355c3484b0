package dev.retrysafe.ratelimit.internal;

import dev.retrysafe.ratelimit.Policy;

/**
 * The states of every key of one policy, striped over {@value #SEGMENTS} independently locked
 * {@link Segment}s. Threadsafe through the segments' locks.
 */
public final class KeyTable {

    /** Enough stripes that a few dozen threads rarely meet on one lock, few enough to stay small. */
    static final int SEGMENTS = 64;

    private static final int SEGMENT_MASK = SEGMENTS - 1;

    private final Policy policy;
    private final Kernel kernel;
    private final long order;
    private final Segment[] segments = new Segment[SEGMENTS];
    private final long[] absent;

    /**
     * @param order this table's place in the store-wide lock order: a decision over several
     *              policies locks its segments by ascending (order, segment index)
     */
    public KeyTable(Policy policy, long order) {
        this.policy = policy;
        this.kernel = Kernel.of(policy);
        this.order = order;
        this.absent = new long[kernel.stride()];
        kernel.writeAbsent(absent, 0);
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment(kernel);
        }
    }

    /**
     * Spreads {@link String#hashCode()} so that both its low bits (the segment) and its high bits
     * (the slot within it) vary, also for keys that differ only in their last character.
     */
    public static int hash(String key) {
        int h = key.hashCode() * 0x9E3779B9;
        return h ^ (h >>> 15);
    }

    public Segment segmentFor(int hash) {
        return segments[hash & SEGMENT_MASK];
    }

    /** The index of the segment of {@code hash}, for lock ordering. */
    public static int segmentIndex(int hash) {
        return hash & SEGMENT_MASK;
    }

    public Policy policy() {
        return policy;
    }

    public Kernel kernel() {
        return kernel;
    }

    /** The state of an untracked key, at offset 0; never written. */
    public long[] absent() {
        return absent;
    }

    public long order() {
        return order;
    }

    Segment[] segments() {
        return segments;
    }

    /** Keys tracked now (locks each segment in turn, so a moving figure under load). */
    public long size() {
        long size = 0;
        for (Segment segment : segments) {
            segment.lock();
            try {
                size += segment.size();
            } finally {
                segment.unlock();
            }
        }
        return size;
    }

    /** Bytes of the table's arrays. */
    public long footprintBytes() {
        long bytes = 0;
        for (Segment segment : segments) {
            segment.lock();
            try {
                bytes += segment.footprintBytes();
            } finally {
                segment.unlock();
            }
        }
        return bytes;
    }

    /**
     * Drops idle keys from every segment it can lock without waiting; returns how many. Never
     * waits, so it may be called while holding another segment's lock.
     */
    public int sweepWithoutWaiting(long now) {
        int dropped = 0;
        for (Segment segment : segments) {
            if (segment.tryLock()) {
                try {
                    dropped += segment.sweep(now);
                } finally {
                    segment.unlock();
                }
            }
        }
        return dropped;
    }
}

package dev.retrysafe.ratelimit.internal;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Policy;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The states of every key of one policy's counters, striped over {@value #SEGMENTS} independently
 * locked {@link Segment}s. A policy's counters are those of its name and algorithm, as Redis keys
 * them (a scope makes its own keys): a plan that scales the policy, or a reload that changes its
 * quota, burst or window, reads
 * and writes the same states through the kernel of the policy it charges with (GCRA's arrival
 * time, a bucket's tokens and a window's count mean the same under other limits). Threadsafe
 * through the segments' locks.
 */
public final class KeyTable {

    /** Enough stripes that a few dozen threads rarely meet on one lock, few enough to stay small. */
    static final int SEGMENTS = 64;

    private static final int SEGMENT_MASK = SEGMENTS - 1;

    /** What identifies a policy's counters: its name and algorithm (its scope makes the keys). */
    public record Identity(String name, Algorithm algorithm) {
        /** The identity of {@code policy}'s counters. */
        public static Identity of(Policy policy) {
            return new Identity(policy.name(), policy.algorithm());
        }
    }

    /** A policy and its kernel, read together. */
    private record Bound(Policy policy, Kernel kernel) {}

    private volatile Bound last;
    private final ConcurrentHashMap<Policy, Kernel> kernels = new ConcurrentHashMap<>();
    private final long order;
    private final Segment[] segments = new Segment[SEGMENTS];

    /**
     * @param order this table's place in the store-wide lock order: a decision over several
     *              policies locks its segments by ascending (order, segment index)
     */
    public KeyTable(Policy policy, long order) {
        Kernel kernel = Kernel.of(policy);
        this.last = new Bound(policy, kernel);
        kernels.put(policy, kernel);
        this.order = order;
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment(kernel.stride());
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

    /** The policy this table was last charged with. */
    public Policy policy() {
        return last.policy();
    }

    /** The kernel of the policy this table was last charged with (sweeps judge idleness by it). */
    public Kernel kernel() {
        return last.kernel();
    }

    /**
     * The kernel of {@code policy}, one of this table's identity. Allocates nothing for the policy
     * charged last (the usual case) nor for one charged before (a plan's scaled copy).
     */
    public Kernel kernelFor(Policy policy) {
        Bound bound = last;
        if (bound.policy() == policy) {
            return bound.kernel();
        }
        Kernel kernel = kernels.computeIfAbsent(policy, Kernel::of);
        last = new Bound(policy, kernel);
        return kernel;
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
                    dropped += segment.sweep(now, kernel());
                } finally {
                    segment.unlock();
                }
            }
        }
        return dropped;
    }
}

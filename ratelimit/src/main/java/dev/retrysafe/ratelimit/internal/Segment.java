package dev.retrysafe.ratelimit.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * One stripe of a {@link KeyTable}: an open-addressing (linear probing) table of keys, their
 * hashes and their states in parallel arrays, guarded by a spin lock. Parallel primitive arrays
 * rather than an object per key are what keep a tracked key at a few dozen bytes, and a spin lock
 * rather than {@code ReentrantLock} is what keeps a contended decision free of allocation (the
 * critical section is a few dozen nanoseconds). Every method but the lock's requires the lock.
 */
public final class Segment extends SegmentFields {

    // Padding after the hot fields, so that two segments' locks never share a cache line.
    long q0, q1, q2, q3, q4, q5, q6, q7;

    private static final VarHandle LOCK;

    static {
        try {
            LOCK = MethodHandles.lookup().findVarHandle(SegmentFields.class, "lock", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static final int MIN_CAPACITY = 8;
    private static final int SPINS_BEFORE_YIELD = 128;
    private static final int YIELDS_BEFORE_PARK = 64;

    private final int stride;

    /** A segment for states of {@code stride} longs (every kernel of one algorithm has the same). */
    Segment(int stride) {
        this.stride = stride;
        allocate(MIN_CAPACITY);
    }

    /** Takes the lock, spinning, then yielding, then parking briefly while another thread holds it. */
    public void lock() {
        if (!LOCK.compareAndSet(this, 0, 1)) {
            lockContended();
        }
    }

    private void lockContended() {
        int spins = 0;
        while (true) {
            if ((int) LOCK.getOpaque(this) == 0 && LOCK.compareAndSet(this, 0, 1)) {
                return;
            }
            spins++;
            if (spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else if (spins < SPINS_BEFORE_YIELD + YIELDS_BEFORE_PARK) {
                Thread.yield();
            } else {
                // the holder was descheduled: stop burning its CPU
                LockSupport.parkNanos(20_000);
            }
        }
    }

    /** Takes the lock only if it is free. */
    public boolean tryLock() {
        return LOCK.compareAndSet(this, 0, 1);
    }

    public void unlock() {
        LOCK.setRelease(this, 0);
    }

    /** The state array; valid until the next {@link #insert} or {@link #sweep}. */
    public long[] states() {
        return states;
    }

    /** The offset of {@code key}'s state, or -1 when it is not tracked. */
    public int find(String key, int hash) {
        String[] keys = this.keys;
        int capacity = keys.length;
        for (int i = home(hash, capacity); ; i = next(i, capacity)) {
            String k = keys[i];
            if (k == null) {
                return -1;
            }
            if (hashes[i] == hash && (k == key || k.equals(key))) {
                return i * stride;
            }
        }
    }

    /**
     * Tracks {@code key} (which must be absent) with {@code kernel}'s absent state (the kernel of the
     * policy charging it); returns its offset. A full
     * table first drops its idle keys, and grows only if that freed less than a third of it.
     */
    public int insert(String key, int hash, long now, Kernel kernel) {
        if (size >= growAt) {
            dropped += sweep(now, kernel);
            if (size > keys.length / 2) {
                rebuild(capacityFor(size));
            }
        }
        int slot = place(key, hash);
        size++;
        int off = slot * stride;
        kernel.writeAbsent(states, off);
        return off;
    }

    /**
     * Drops every key that is idle at {@code now} as {@code kernel} sees it, in place (no allocation, no shrinking: a table
     * keeps its high-water mark, which {@code maxKeys} bounds). Returns how many were dropped.
     */
    public int sweep(long now, Kernel kernel) {
        int capacity = keys.length;
        int empty = 0;
        while (keys[empty] != null) {
            empty++; // a table is never full, and no entry moves across an empty slot
        }
        int before = size;
        for (int j = 1; j <= capacity; j++) {
            int i = (empty + j) % capacity;
            // deleting shifts a later entry into i: look at i again
            while (keys[i] != null && kernel.isIdle(states, i * stride, now)) {
                delete(i);
            }
        }
        return before - size;
    }

    /**
     * Stops tracking the key at {@code off} (from {@link #find}); other keys' offsets may change.
     * For a key whose state is back to an absent key's, as after a full refund.
     */
    public void remove(int off) {
        delete(off / stride);
    }

    /** Keys dropped by sweeps on insert since the last call, for the store's count. */
    public int takeDropped() {
        int d = dropped;
        dropped = 0;
        return d;
    }

    /** Linear probing's backward-shift deletion: later entries of the run move into the hole. */
    private void delete(int slot) {
        int capacity = keys.length;
        int hole = slot;
        for (int j = next(slot, capacity); keys[j] != null; j = next(j, capacity)) {
            int home = home(hashes[j], capacity);
            boolean homeInHoleToJ = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
            if (!homeInHoleToJ) {
                keys[hole] = keys[j];
                hashes[hole] = hashes[j];
                System.arraycopy(states, j * stride, states, hole * stride, stride);
                hole = j;
            }
        }
        keys[hole] = null;
        size--;
    }

    public int size() {
        return size;
    }

    /** Bytes held by this segment's arrays (array headers included, compressed references assumed). */
    public long footprintBytes() {
        return arrayBytes(keys.length, 4) + arrayBytes(hashes.length, 4) + arrayBytes(states.length, 8);
    }

    private static long arrayBytes(int length, int elementBytes) {
        return (16 + (long) length * elementBytes + 7) & ~7L;
    }

    /** Reallocates at {@code capacity}, keeping every key. */
    private void rebuild(int capacity) {
        String[] oldKeys = keys;
        int[] oldHashes = hashes;
        long[] oldStates = states;
        allocate(capacity);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != null) {
                int slot = place(oldKeys[i], oldHashes[i]);
                System.arraycopy(oldStates, i * stride, states, slot * stride, stride);
            }
        }
    }

    /**
     * Twice the keys: a table is rebuilt half full and grows at three quarters, so it holds 1.33
     * to 2 slots per key while it grows (a power-of-two table would swing between 1.33 and 2.67).
     */
    private static int capacityFor(int keys) {
        return Math.max(MIN_CAPACITY, 2 * (keys + 1));
    }

    /**
     * The first slot to probe: the hash's high bits scaled to the capacity (Lemire's
     * multiply-shift), which allows any capacity; the low bits chose the segment.
     */
    private static int home(int hash, int capacity) {
        return (int) (((hash & 0xFFFF_FFFFL) * capacity) >>> 32);
    }

    private static int next(int slot, int capacity) {
        int next = slot + 1;
        return next == capacity ? 0 : next;
    }

    private int place(String key, int hash) {
        int capacity = keys.length;
        int i = home(hash, capacity);
        while (keys[i] != null) {
            i = next(i, capacity);
        }
        keys[i] = key;
        hashes[i] = hash;
        return i;
    }

    private void allocate(int capacity) {
        keys = new String[capacity];
        hashes = new int[capacity];
        states = new long[capacity * stride];
        growAt = capacity - (capacity >>> 2);
    }
}

/** The hot fields of a segment, behind padding (see {@link Segment}). */
abstract class SegmentFields extends SegmentPadding {
    int lock;
    String[] keys = new String[0];
    int[] hashes = new int[0];
    long[] states = new long[0];
    int size;
    int growAt;
    int dropped;
}

/** Padding before the hot fields. */
abstract class SegmentPadding {
    long p0, p1, p2, p3, p4, p5, p6, p7;
}

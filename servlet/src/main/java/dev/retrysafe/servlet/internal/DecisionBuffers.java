package dev.retrysafe.servlet.internal;

import dev.retrysafe.ratelimit.DecisionBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A few {@link DecisionBuffer}s shared by one filter's requests, so that a request's rate-limit
 * decision allocates nothing: taking one and giving it back are a compare-and-set each. Requests
 * run on virtual threads, one per request, so a buffer per thread would be a buffer per request;
 * a buffer is held only for the store call and the header rendering. When every slot is taken a
 * request makes its own, which is kept if a slot is free when it is given back. Threadsafe.
 */
final class DecisionBuffers {

    private final AtomicReferenceArray<DecisionBuffer> slots;
    private final int mask;

    /** Room for at least {@code size} buffers (rounded up to a power of two), all made now. */
    DecisionBuffers(int size) {
        int slotCount = size <= 1 ? 1 : Integer.highestOneBit(size - 1) << 1;
        this.slots = new AtomicReferenceArray<>(slotCount);
        this.mask = slotCount - 1;
        for (int i = 0; i < slotCount; i++) {
            slots.set(i, new DecisionBuffer());
        }
    }

    /** Four per processor, at least sixteen: more than the requests deciding at once, usually. */
    static DecisionBuffers forThisMachine() {
        return new DecisionBuffers(Math.max(16, 4 * Runtime.getRuntime().availableProcessors()));
    }

    /** A buffer of the caller's own until {@link #giveBack}. */
    DecisionBuffer take() {
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int slot = (start + i) & mask;
            DecisionBuffer buffer = slots.get(slot);
            if (buffer != null && slots.compareAndSet(slot, buffer, null)) {
                return buffer;
            }
        }
        return new DecisionBuffer();
    }

    /** Returns {@code buffer}, emptied (it no longer names the request's keys), for another request. */
    void giveBack(DecisionBuffer buffer) {
        buffer.clear();
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int slot = (start + i) & mask;
            if (slots.get(slot) == null && slots.compareAndSet(slot, null, buffer)) {
                return;
            }
        }
    }

    /** Where a thread starts looking, so that threads at once rarely meet on one slot. */
    private int start() {
        long id = Thread.currentThread().threadId();
        return (int) (id ^ (id >>> 32)) * 0x9E3779B9 >>> 16;
    }
}

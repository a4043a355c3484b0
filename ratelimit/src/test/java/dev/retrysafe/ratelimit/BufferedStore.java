package dev.retrysafe.ratelimit;

import java.util.List;

/**
 * The in-memory store seen through its buffered decision: {@code decide} fills its thread's
 * reused {@link DecisionBuffer} and returns {@link DecisionBuffer#toDecision()}, so that every
 * contract written against {@code decide} also holds for the path the HTTP filter takes.
 */
final class BufferedStore implements RateLimitStore {

    final InMemoryRateLimitStore inner;
    // one per thread, starting small: the growth is tested too
    private final ThreadLocal<DecisionBuffer> buffers = ThreadLocal.withInitial(() -> new DecisionBuffer(1));

    BufferedStore(InMemoryRateLimitStore inner) {
        this.inner = inner;
    }

    @Override
    public Decision decide(String partition, List<Charge> charges) {
        DecisionBuffer buffer = buffers.get();
        inner.decide(partition, charges, buffer);
        return buffer.toDecision();
    }

    @Override
    public Decision peek(String partition, List<Charge> charges) {
        return inner.peek(partition, charges);
    }

    @Override
    public Decision refund(String partition, List<Charge> charges) {
        return inner.refund(partition, charges);
    }

    @Override
    public void close() {
        inner.close();
    }
}

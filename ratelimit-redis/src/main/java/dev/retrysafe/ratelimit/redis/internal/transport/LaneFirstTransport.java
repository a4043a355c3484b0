package dev.retrysafe.ratelimit.redis.internal.transport;

import dev.retrysafe.ratelimit.redis.internal.ScriptCall;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A standalone Redis reached two ways: a call alone in the store goes on the {@link DirectLane}
 * when it finds it free, every other call through Lettuce. Under concurrency a decision costs less
 * in a shared call, and a lane call polling for its reply would take a core the others need; a
 * lone decision saves two thread hand-offs on the lane (bench/ratelimit/HISTORY.md). The choice
 * is made per call from live counters, here, so that the decisions never see it. Threadsafe.
 */
final class LaneFirstTransport implements ScriptTransport {

    private final DirectLane lane;
    private final LettuceTransport lettuce;
    /**
     * Decisions under way in the store, from their start to their answer: the lane is for a
     * decision alone, counted from before its call is made, so that one still preparing its call
     * (reading its time source, say) keeps another off the lane.
     */
    private final AtomicInteger underWay = new AtomicInteger();

    /** Calls on {@code lane} when alone, else through {@code lettuce}; this closes both, the lane first. */
    LaneFirstTransport(DirectLane lane, LettuceTransport lettuce) {
        this.lane = lane;
        this.lettuce = lettuce;
    }

    @Override
    public void decisionStarted() {
        underWay.incrementAndGet();
    }

    @Override
    public void decisionEnded() {
        underWay.decrementAndGet();
    }

    @Override
    public List<Object> run(ScriptCall call, Duration timeout) {
        // the lane for a decision alone (no other under way, no shared call on its way); null when
        // the lane was taken or is not connected, and then nothing was sent
        List<Object> direct = underWay.get() == 1 && lettuce.idle() ? lane.tryRun(call, timeout) : null;
        return direct != null ? direct : lettuce.run(call, timeout);
    }

    @Override
    public String nodeFor(byte[] key) {
        return lettuce.nodeFor(key);
    }

    @Override
    public Set<String> nodes() {
        return lettuce.nodes();
    }

    @Override
    public void close() {
        try {
            lane.close();
        } finally {
            lettuce.close();
        }
    }
}

package dev.retrysafe.ratelimit.redis.internal.transport;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ScriptLink} to a standalone Redis reached two ways, as {@link LaneFirstTransport} is for
 * decisions: a call alone on the link goes on the {@link DirectLane} when it finds it free, every
 * other call through Lettuce. A concurrency limit's acquisition and release are two calls, each a
 * round trip whose thread hand-offs through Lettuce's event loop are most of its time when Redis
 * is near; the lane saves them for a lone caller, and under concurrency Lettuce's one connection
 * carries the calls together instead of one caller polling a core away from the others.
 * Threadsafe.
 */
final class LaneFirstScriptLink implements ScriptLink {

    private final DirectLane lane;
    private final LettuceScriptLink lettuce;
    /** Calls under way on the link: the lane is for a call alone. */
    private final AtomicInteger underWay = new AtomicInteger();
    /** Each digest in ASCII, as the lane sends it, made once per script. */
    private final ConcurrentHashMap<String, byte[]> digests = new ConcurrentHashMap<>();

    /**
     * Calls on {@code lane} when alone, else through {@code lettuce}; this closes both, the lane
     * first (the Lettuce link then closes the deadlines both use).
     */
    LaneFirstScriptLink(DirectLane lane, LettuceScriptLink lettuce) {
        this.lane = lane;
        this.lettuce = lettuce;
    }

    @Override
    public List<Object> run(String sha1, byte[] source, byte[][] keys, byte[][] arguments, Duration timeout) {
        try {
            List<Object> direct = null;
            if (underWay.incrementAndGet() == 1) {
                byte[] digest = digests.get(sha1);
                if (digest == null) {
                    digest = digests.computeIfAbsent(sha1, s -> s.getBytes(StandardCharsets.US_ASCII));
                }
                // null when the lane was taken or is not connected: then nothing was sent
                direct = lane.tryRun(digest, source, keys, arguments, timeout);
            }
            return direct != null ? direct : lettuce.run(sha1, source, keys, arguments, timeout);
        } finally {
            underWay.decrementAndGet();
        }
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

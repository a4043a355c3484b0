package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.redis.internal.transport.ScriptTransport;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * One {@link CircuitBreaker} per Redis node, made on first use: a standalone Redis has one, a
 * Cluster one per master, so that a master that is down keeps calls away from itself only and the
 * partitions on the other masters are still counted. Threadsafe.
 */
public final class Breakers {

    private final int failuresToOpen;
    private final Duration openFor;
    private final Clock clock;
    private final ConcurrentMap<String, CircuitBreaker> byNode = new ConcurrentHashMap<>();

    /** Breakers that each open after {@code failuresToOpen} failures for {@code openFor}, timed by {@code clock}. */
    public Breakers(int failuresToOpen, Duration openFor, Clock clock) {
        this.failuresToOpen = failuresToOpen;
        this.openFor = openFor;
        this.clock = clock;
        forNode(ScriptTransport.ANY_NODE); // checks the settings now rather than on the first call
    }

    /** The breaker of {@code node}. */
    public CircuitBreaker forNode(String node) {
        CircuitBreaker breaker = byNode.get(node);
        return breaker != null
                ? breaker // the common case: no lambda, no lock
                : byNode.computeIfAbsent(node, n -> new CircuitBreaker(failuresToOpen, openFor, clock));
    }

    /**
     * Whether a breaker of one of {@code liveNodes} is open; the breakers of other nodes (gone
     * from the cluster, or replaced by a replica) are dropped.
     */
    public boolean anyOpen(Set<String> liveNodes) {
        byNode.keySet().removeIf(node -> !node.equals(ScriptTransport.ANY_NODE) && !liveNodes.contains(node));
        return byNode.entrySet().stream()
                .anyMatch(e -> liveNodes.contains(e.getKey()) && e.getValue().isOpen());
    }
}

package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.redis.internal.transport.ScriptTransport;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisReadOnlyException;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

/**
 * One decision: through the circuit breaker of the node that serves the request's keys, one
 * script call over the {@link ScriptTransport}, and the policies' fail modes when Redis cannot
 * answer. Threadsafe.
 */
public final class RedisDecisions implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisDecisions.class.getName());

    /** The Retry-After of a decision that failed while the breaker stayed closed. */
    private static final Duration RETRY_SOON = Duration.ofSeconds(1);

    /** Error codes of a server that cannot serve now (failover, cluster without a quorum). */
    private static final List<String> UNAVAILABLE_ERRORS = List.of("MASTERDOWN", "CLUSTERDOWN", "NOREPLICAS");

    /**
     * Error codes with which a Cluster master says that the call's slot is being moved to another
     * master: {@code TRYAGAIN} (a call with several keys while only some of them have moved), or
     * a redirection that Lettuce gave up following. The master is fine, so its breaker is not
     * touched; this one decision goes by the fail modes.
     */
    private static final List<String> SLOT_MOVING_ERRORS = List.of("TRYAGAIN", "MOVED", "ASK");

    private final StoreSettings settings;
    private final KeyLayout layout;
    private final ScriptTransport transport;
    private final Breakers breakers;
    private final LocalFallback fallback;
    private final RedisLatency latency = new RedisLatency();
    /** {@code settings.minimumKeyTtl()} as the script's argument: the same for every call. */
    private final byte[] minimumKeyTtl;

    /**
     * Decisions with {@code settings} over {@code transport}, which this closes, counting in
     * {@code fallback} for fail-local policies while Redis cannot be reached.
     */
    public RedisDecisions(StoreSettings settings, ScriptTransport transport, LocalFallback fallback) {
        this.fallback = fallback;
        this.settings = settings;
        this.layout = new KeyLayout(settings.keyPrefix());
        this.transport = transport;
        this.breakers = new Breakers(settings.failuresToOpen(), settings.openFor(), settings.breakerClock());
        this.minimumKeyTtl = ScriptCall.number(settings.minimumKeyTtl().toMillis());
    }

    /**
     * Charges, peeks at or refunds {@code charges}, as {@code mode} says; never throws for an
     * unreachable Redis. Every mode goes the same way: the breaker, the script call, the fail modes.
     */
    public Decision decide(String partition, List<Charge> charges, ScriptCall.Mode mode) {
        if (charges.isEmpty()) {
            return new Decision.Allowed(List.of());
        }
        requireOnePerPolicy(charges);
        transport.decisionStarted();
        try {
            return decideStarted(partition, charges, mode);
        } finally {
            transport.decisionEnded();
        }
    }

    private Decision decideStarted(String partition, List<Charge> charges, ScriptCall.Mode mode) {
        ScriptCall call = ScriptCall.of(layout, partition, charges, mode, explicitNow(), minimumKeyTtl);
        // every key of a call is in one slot, so its first key names the node
        CircuitBreaker breaker = breakers.forNode(transport.nodeFor(call.keys()[0]));
        if (!breaker.tryAcquire()) {
            return unreachable(charges, breaker, mode);
        }
        List<Object> reply;
        long started = MonotonicClock.nanoTime();
        try {
            reply = transport.run(call, settings.commandTimeout());
        } catch (RedisCommandExecutionException e) {
            if (meansUnavailable(e)) {
                breaker.onFailure();
            } else if (startsWithAny(e, SLOT_MOVING_ERRORS)) {
                breaker.onSuccess();
                LOG.log(
                        Level.DEBUG,
                        "rate-limit decision refused while its Cluster slot moves; deciding by fail mode: {0}",
                        e.getMessage());
            } else {
                // Redis answered, with an error: not an outage, but no decision either (a key of
                // another type under our prefix, say). Say so loudly; the fail mode decides.
                breaker.onSuccess();
                LOG.log(Level.ERROR, "rate-limit script failed on Redis; deciding by fail mode", e);
            }
            return unreachable(charges, breaker, mode);
        } catch (RedisException e) {
            breaker.onFailure();
            return unreachable(charges, breaker, mode);
        } finally {
            latency.record(MonotonicClock.nanoTime() - started);
        }
        breaker.onSuccess();
        try {
            return ScriptReply.decision(charges, reply, ScriptReply.FIRST, mode);
        } catch (ScriptReply.RequestFailed e) {
            // as above: Redis answered, but could not decide this request
            LOG.log(Level.ERROR, "rate-limit script failed on Redis; deciding by fail mode: {0}", e.getMessage());
            return unreachable(charges, breaker, mode);
        }
    }

    /**
     * The store's contract allows one charge per policy; two under one policy name would share a
     * key, and the script, which evaluates every charge before writing, would lose one of them.
     */
    private static void requireOnePerPolicy(List<Charge> charges) {
        for (int i = 1; i < charges.size(); i++) {
            String name = charges.get(i).policy().name();
            for (int j = 0; j < i; j++) {
                if (charges.get(j).policy().name().equals(name)) {
                    throw new IllegalArgumentException("at most one charge per policy: " + name);
                }
            }
        }
    }

    /** Whether a breaker keeps calls away from Redis (from one of a Cluster's masters) now. */
    public boolean breakerOpen() {
        return breakers.anyOpen(transport.nodes());
    }

    /** How long the script calls that Redis answered took, as the caller waited for them. */
    public RedisLatency latency() {
        return latency;
    }

    private Decision unreachable(List<Charge> charges, CircuitBreaker breaker, ScriptCall.Mode mode) {
        Duration retryAfter = breaker.isOpen() ? breaker.remainingOpen() : RETRY_SOON;
        Clock wall = settings.timeSource() != null ? settings.timeSource() : Clock.systemUTC();
        return Unreachable.decision(charges, micros(wall.instant()), retryAfter, fallback, mode);
    }

    private OptionalLong explicitNow() {
        Clock timeSource = settings.timeSource();
        return timeSource == null ? OptionalLong.empty() : OptionalLong.of(micros(timeSource.instant()));
    }

    /** Errors with which Redis says it cannot serve now, rather than that the call was wrong. */
    private static boolean meansUnavailable(RedisCommandExecutionException e) {
        if (e instanceof RedisBusyException
                || e instanceof RedisLoadingException
                || e instanceof RedisReadOnlyException) {
            return true;
        }
        return startsWithAny(e, UNAVAILABLE_ERRORS);
    }

    private static boolean startsWithAny(RedisCommandExecutionException e, List<String> errorCodes) {
        String message = e.getMessage();
        return message != null && errorCodes.stream().anyMatch(message::startsWith);
    }

    static long micros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
    }

    @Override
    public void close() {
        transport.close();
    }
}

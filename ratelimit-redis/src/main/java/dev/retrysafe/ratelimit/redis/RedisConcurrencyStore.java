package dev.retrysafe.ratelimit.redis;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.ConcurrencyDecision;
import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.ConcurrencySlot;
import dev.retrysafe.ratelimit.ConcurrencyStore;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Permit;
import dev.retrysafe.ratelimit.redis.internal.Breakers;
import dev.retrysafe.ratelimit.redis.internal.CircuitBreaker;
import dev.retrysafe.ratelimit.redis.internal.ConcurrencyScript;
import dev.retrysafe.ratelimit.redis.internal.StoreSettings;
import dev.retrysafe.ratelimit.redis.internal.transport.ScriptLink;
import dev.retrysafe.ratelimit.redis.internal.transport.ScriptTransports;
import dev.retrysafe.ratelimit.redis.internal.transport.TransportSettings;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Concurrency limits counted in Redis, exact across every instance that uses the same Redis and
 * key prefix. Each limit and key is a sorted set whose members are the permits holding a slot,
 * scored by the time their lease runs out (Redis's clock); one Lua script per acquisition removes
 * the leases that ran out, counts, and adds the permit to every set or to none, and one more call
 * releases it. A call alone in the store goes over a plain connection of its own when it finds
 * it free ({@link Builder#directConnection}), concurrent calls over one Lettuce connection.
 *
 * <p>While a permit is held, a thread of the store renews its leases (every {@code lease / 3},
 * checked every {@link Builder#renewalTick}), so a request may run longer than its lease. A
 * permit is renewed for the last time at most {@code lease / 3} plus a tick before its instance
 * dies, and Redis forgets it {@code lease} after that renewal: <b>the slots of an instance that
 * died come back at most {@code lease} after it died</b>. A release that cannot reach Redis is
 * not retried (nor tried while the circuit breaker is open): that slot too comes back when its
 * lease runs out. A request that runs on while its
 * instance cannot reach Redis for longer than its lease loses its slots (the store logs it), and
 * the limit may then be exceeded until that request ends.
 *
 * <p>When Redis does not answer within the command timeout, an acquisition follows each limit's
 * {@link FailMode}, with a circuit breaker as in {@link RedisRateLimitStore}. This class is
 * threadsafe.
 */
public final class RedisConcurrencyStore implements ConcurrencyStore {

    private static final System.Logger LOG = System.getLogger(RedisConcurrencyStore.class.getName());
    private static final String SHA1 = ConcurrencyScript.sha1();
    private static final byte[] SOURCE = ConcurrencyScript.sourceBytes();
    private static final byte[] ACQUIRE = ConcurrencyScript.bytes("acquire");
    private static final byte[] RENEW = ConcurrencyScript.bytes("renew");
    private static final byte[] RELEASE = ConcurrencyScript.bytes("release");
    private static final byte[] COUNT = ConcurrencyScript.bytes("count");
    private static final byte[] REDIS_TIME = new byte[0];
    private static final long RETRY_AFTER_SECONDS = 1;

    private final ScriptLink link;
    private final String keyPrefix;
    private final Duration commandTimeout;
    private final Breakers breakers;
    private final @Nullable Clock timeSource;
    /** Names this store's permits in Redis: which instance holds a slot is visible there. */
    private final String holder = UUID.randomUUID().toString().substring(0, 13);

    private final AtomicLong sequence = new AtomicLong();
    private final Set<Held> held = ConcurrentHashMap.newKeySet();
    private final @Nullable ScheduledExecutorService renewer;

    private RedisConcurrencyStore(Builder builder, ScriptLink link) {
        this.link = link;
        this.keyPrefix = builder.keyPrefix;
        this.commandTimeout = builder.commandTimeout;
        this.breakers = new Breakers(builder.failuresToOpen, builder.openFor, MonotonicClock.clock());
        this.timeSource = builder.timeSource;
        if (builder.renewalTick.isZero()) {
            this.renewer = null;
        } else {
            this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "retrysafe-concurrency-renewal");
                t.setDaemon(true);
                return t;
            });
            long tick = builder.renewalTick.toNanos();
            renewer.scheduleWithFixedDelay(this::renewDue, tick, tick, TimeUnit.NANOSECONDS);
        }
    }

    /** A builder; {@link Builder#redisUri} or {@link Builder#redisCluster} must be set. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public ConcurrencyDecision acquire(String partition, List<ConcurrencySlot> slots) {
        if (slots.isEmpty()) {
            return new ConcurrencyDecision.Acquired(Permit.none(List.of()));
        }
        requireOnePerPolicy(slots);
        byte[][] keys = keys(partition, slots);
        String member = holder + ':' + sequence.incrementAndGet();
        CircuitBreaker breaker = breakers.forNode(link.nodeFor(keys[0]));
        if (!breaker.tryAcquire()) {
            return unreachable(slots, breaker);
        }
        List<Object> reply;
        try {
            reply = link.run(SHA1, SOURCE, keys, arguments(ACQUIRE, member, slots), commandTimeout);
        } catch (RedisCommandExecutionException e) {
            // Redis answered, with an error: no outage, but no decision either
            breaker.onSuccess();
            LOG.log(Level.ERROR, "concurrency script failed on Redis; deciding by fail mode", e);
            return unreachable(slots, breaker);
        } catch (RedisException e) {
            breaker.onFailure();
            return unreachable(slots, breaker);
        }
        breaker.onSuccess();
        int full = (int) (long) (Long) reply.get(1);
        if (full > 0) {
            return new ConcurrencyDecision.Refused(
                    slots.get(full - 1), (int) (long) (Long) reply.get(2), RETRY_AFTER_SECONDS);
        }
        Held permit = new Held(List.copyOf(slots), keys, member, renewEveryNanos(slots));
        held.add(permit);
        return new ConcurrencyDecision.Acquired(permit);
    }

    @Override
    public int inFlight(String partition, ConcurrencySlot slot) {
        List<ConcurrencySlot> one = List.of(slot);
        try {
            List<Object> reply =
                    link.run(SHA1, SOURCE, keys(partition, one), arguments(COUNT, "", one), commandTimeout);
            return (int) (long) (Long) reply.get(1);
        } catch (RedisException e) {
            return -1;
        }
    }

    /** How many permits this store holds now (acquired, not released), for metrics and tests. */
    public int held() {
        return held.size();
    }

    /**
     * Renews every permit held now, whatever its schedule, and returns how many of them had lost
     * a slot (their lease had run out): what the renewal thread does for the permits that are
     * due, for tests that drive time themselves ({@link Builder#timeSource}).
     */
    public int renewAll() {
        int lost = 0;
        for (Held permit : held) {
            lost += renew(permit) ? 0 : 1;
        }
        return lost;
    }

    private void renewDue() {
        try {
            long now = MonotonicClock.nanoTime();
            for (Held permit : held) {
                if (now - permit.renewedAt >= permit.renewEveryNanos) {
                    renew(permit);
                }
            }
        } catch (RuntimeException e) {
            // an exception would end the scheduled renewals for good: log it and go on next tick
            LOG.log(Level.ERROR, "renewing concurrency permits failed", e);
        }
    }

    /** Renews {@code permit}'s leases; whether it still held every slot. */
    private boolean renew(Held permit) {
        long started = MonotonicClock.nanoTime();
        CircuitBreaker breaker = breakers.forNode(link.nodeFor(permit.keys[0]));
        if (!breaker.tryAcquire()) {
            return true; // Redis is known to be down: try again at the next tick
        }
        try {
            List<Object> reply =
                    link.run(SHA1, SOURCE, permit.keys, arguments(RENEW, permit.member, permit.slots), commandTimeout);
            breaker.onSuccess();
            permit.renewedAt = started;
            if ((Long) reply.get(1) > 0) {
                // its leases ran out while the request ran: others may have its slots now
                held.remove(permit);
                LOG.log(
                        Level.WARNING,
                        "a request outlived its concurrency slots ({0}): Redis could not be reached for"
                                + " longer than the lease; the limit may be exceeded until it ends",
                        permit.slots.getFirst().policy().name());
                return false;
            }
            return true;
        } catch (RedisException e) {
            breaker.onFailure();
            LOG.log(Level.DEBUG, "renewing a concurrency permit failed; trying again: {0}", e.toString());
            return true;
        } catch (IllegalStateException e) {
            return true; // closed meanwhile
        }
    }

    private ConcurrencyDecision unreachable(List<ConcurrencySlot> slots, CircuitBreaker breaker) {
        for (ConcurrencySlot slot : slots) {
            if (slot.policy().failMode() == FailMode.CLOSED) {
                long seconds = breaker.isOpen()
                        ? Math.max(1, (breaker.remainingOpen().toMillis() + 999) / 1000)
                        : RETRY_AFTER_SECONDS;
                return new ConcurrencyDecision.Unavailable(slot.policy(), seconds);
            }
        }
        return new ConcurrencyDecision.Acquired(Permit.none(slots));
    }

    private byte[][] keys(String partition, List<ConcurrencySlot> slots) {
        byte[][] keys = new byte[slots.size()][];
        for (int i = 0; i < keys.length; i++) {
            ConcurrencySlot slot = slots.get(i);
            keys[i] = ConcurrencyScript.bytes(
                    ConcurrencyScript.key(keyPrefix, partition, slot.policy().name(), slot.key()));
        }
        return keys;
    }

    private byte[][] arguments(byte[] op, String member, List<ConcurrencySlot> slots) {
        byte[][] args = new byte[3 + 2 * slots.size()][];
        args[0] = op;
        args[1] = timeSource == null ? REDIS_TIME : ConcurrencyScript.bytes(Long.toString(timeSource.millis()));
        args[2] = ConcurrencyScript.bytes(member);
        for (int i = 0; i < slots.size(); i++) {
            ConcurrencyPolicy policy = slots.get(i).policy();
            args[3 + 2 * i] = ConcurrencyScript.bytes(Integer.toString(policy.limit()));
            args[4 + 2 * i] =
                    ConcurrencyScript.bytes(Long.toString(policy.lease().toMillis()));
        }
        return args;
    }

    private static long renewEveryNanos(List<ConcurrencySlot> slots) {
        long shortest = Long.MAX_VALUE;
        for (ConcurrencySlot slot : slots) {
            shortest = Math.min(shortest, slot.policy().lease().toNanos());
        }
        return shortest / 3;
    }

    private static void requireOnePerPolicy(List<ConcurrencySlot> slots) {
        for (int i = 1; i < slots.size(); i++) {
            String name = slots.get(i).policy().name();
            for (int j = 0; j < i; j++) {
                if (slots.get(j).policy().name().equals(name)) {
                    throw new IllegalArgumentException("at most one slot per limit: " + name);
                }
            }
        }
    }

    /**
     * Stops renewing and closes the connection. Permits still held are not released: their slots
     * come back when their leases run out, as a dead instance's would.
     */
    @Override
    public void close() {
        if (renewer != null) {
            renewer.shutdownNow();
        }
        held.clear();
        link.close();
    }

    /** A permit whose slots are in Redis. */
    private final class Held implements Permit {
        final List<ConcurrencySlot> slots;
        final byte[][] keys;
        final String member;
        final long renewEveryNanos;
        volatile long renewedAt = MonotonicClock.nanoTime();
        private final AtomicBoolean released = new AtomicBoolean();

        Held(List<ConcurrencySlot> slots, byte[][] keys, String member, long renewEveryNanos) {
            this.slots = slots;
            this.keys = keys;
            this.member = member;
            this.renewEveryNanos = renewEveryNanos;
        }

        @Override
        public List<ConcurrencySlot> slots() {
            return slots;
        }

        @Override
        public void release() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            held.remove(this);
            // with Redis known to be down, the request's end does not wait for it: the lease frees the slots
            CircuitBreaker breaker = breakers.forNode(link.nodeFor(keys[0]));
            if (!breaker.tryAcquire()) {
                return;
            }
            try {
                link.run(SHA1, SOURCE, keys, arguments(RELEASE, member, List.of()), commandTimeout);
                breaker.onSuccess();
            } catch (RedisException e) {
                breaker.onFailure();
                LOG.log(Level.DEBUG, "releasing a concurrency permit failed; its lease frees it: {0}", e.toString());
            } catch (IllegalStateException e) {
                // closed meanwhile: the lease frees the slots
            }
        }
    }

    /** Builds a {@link RedisConcurrencyStore}. Not threadsafe. */
    public static final class Builder {
        private @Nullable String redisUri;
        private @Nullable List<String> clusterSeeds;
        private String keyPrefix = "retrysafe:rl:";
        private Duration commandTimeout = Duration.ofMillis(100);
        private Duration connectTimeout = Duration.ofSeconds(1);
        private int failuresToOpen = 5;
        private Duration openFor = Duration.ofSeconds(2);
        private Duration renewalTick = Duration.ofMillis(250);
        private @Nullable Clock timeSource;
        private boolean directConnection = true;

        private Builder() {}

        /** The standalone Redis to use, as a Lettuce URI; the store makes its own client. */
        public Builder redisUri(String uri) {
            RedisURI.create(uri);
            this.redisUri = uri;
            this.clusterSeeds = null;
            return this;
        }

        /** A Redis Cluster, by seed nodes as Lettuce URIs; the store makes its own cluster client. */
        public Builder redisCluster(List<String> seedUris) {
            if (seedUris.isEmpty()) {
                throw new IllegalArgumentException("a Redis Cluster needs at least one seed node");
            }
            this.clusterSeeds = List.copyOf(seedUris);
            this.redisUri = null;
            return this;
        }

        /** Put before every key (default {@code retrysafe:rl:}, beside the rate-limit counters); no braces. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        /** How long a call waits for Redis (default 100 ms) before the limits' fail modes decide. */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = StoreSettings.requirePositive("commandTimeout", commandTimeout);
            return this;
        }

        /** How long one attempt to connect may take (default 1 s). */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = StoreSettings.requirePositive("connectTimeout", connectTimeout);
            return this;
        }

        /** The circuit breaker, as {@link RedisRateLimitStore.Builder#circuitBreaker}. */
        public Builder circuitBreaker(int failuresToOpen, Duration openFor) {
            if (failuresToOpen < 1) {
                throw new IllegalArgumentException("failuresToOpen must be at least 1: " + failuresToOpen);
            }
            this.failuresToOpen = failuresToOpen;
            this.openFor = StoreSettings.requirePositive("openFor", openFor);
            return this;
        }

        /**
         * How often the renewal thread looks for permits due for renewal (default 250 ms, at most
         * 300 ms so that a 1 s lease is renewed in time); zero: no renewal thread, for tests that
         * call {@link RedisConcurrencyStore#renewAll()} themselves.
         */
        public Builder renewalTick(Duration tick) {
            if (tick.isNegative() || tick.compareTo(Duration.ofMillis(300)) > 0) {
                throw new IllegalArgumentException("renewalTick must be 0 to 300ms: " + tick);
            }
            this.renewalTick = tick;
            return this;
        }

        /**
         * Whether a call alone in the store (an acquisition, a release, a renewal) that finds it
         * free goes over a second, plain connection of the store's own (default true), written and
         * read on the caller's thread, rather than through Lettuce's event loop, as
         * {@link RedisRateLimitStore.Builder#directConnection} does for decisions; concurrent calls
         * go through Lettuce. Only for a standalone Redis given by {@link #redisUri} as
         * {@code redis://} (no TLS, Unix socket or Sentinel): elsewhere this setting has no effect.
         * Failures, timeouts and fail modes are the same either way.
         */
        public Builder directConnection(boolean directConnection) {
            this.directConnection = directConnection;
            return this;
        }

        /** Lease times from this clock instead of Redis's ({@code TIME}): for tests only. */
        public Builder timeSource(Clock timeSource) {
            this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
            return this;
        }

        /** Builds the store and connects, waiting at most the connect timeout; a Redis that is down is no error. */
        public RedisConcurrencyStore build() {
            if (redisUri == null && clusterSeeds == null) {
                throw new IllegalStateException("a Redis concurrency store needs redisUri(...) or redisCluster(...)");
            }
            new StoreSettings(
                    keyPrefix, commandTimeout, failuresToOpen, openFor, Clock.systemUTC(), Duration.ZERO, null);
            TransportSettings transport = new TransportSettings(
                    commandTimeout,
                    connectTimeout,
                    Duration.ofSeconds(30),
                    false,
                    directConnection,
                    TransportSettings.defaultSpinLimit());
            return new RedisConcurrencyStore(this, ScriptTransports.link(redisUri, clusterSeeds, transport));
        }
    }
}

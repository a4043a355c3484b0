package dev.retrysafe.ratelimit.redis;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.ratelimit.ShadowPolicies;
import dev.retrysafe.ratelimit.redis.internal.LocalFallback;
import dev.retrysafe.ratelimit.redis.internal.RedisDecisions;
import dev.retrysafe.ratelimit.redis.internal.RedisLatency;
import dev.retrysafe.ratelimit.redis.internal.ScriptCall.Mode;
import dev.retrysafe.ratelimit.redis.internal.StoreSettings;
import dev.retrysafe.ratelimit.redis.internal.transport.ScriptTransport;
import dev.retrysafe.ratelimit.redis.internal.transport.ScriptTransports;
import dev.retrysafe.ratelimit.redis.internal.transport.TransportSettings;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Rate-limit counters in Redis, shared by every instance that uses the same Redis and key
 * prefix. Each decision is one Lua script that checks every charge of the request and spends
 * them all or none, timed by Redis's clock (so instances with skewed clocks agree), with the
 * arithmetic of {@code docs/rate-limits.md}. All keys of a request share the partition as hash
 * tag, so on a Redis Cluster ({@link Builder#redisCluster}) each decision is one script on the
 * master of one slot, and the partitions spread over the masters; keys expire once their state is
 * back to "unused".
 *
 * <p>When Redis does not answer within the command timeout, or refuses, the decision follows
 * each policy's {@link dev.retrysafe.ratelimit.FailMode}: fail-open policies let the request
 * through uncounted (their states are unknown), a fail-closed one makes it
 * {@link Decision.Unavailable}, and fail-local ones are counted in this process at this instance's
 * share of their quotas ({@link Builder#fallbackInstances}) until Redis answers again. After a run of failures a circuit breaker keeps calls away from
 * Redis for a cool-down, so an outage adds no latency; then one probe call decides whether Redis
 * is back. Recovery needs nothing from the caller. On a Cluster each master has a breaker of its
 * own: a master that is down fails the partitions it serves, and the others are still counted.
 *
 * <p>This class is threadsafe; one instance serves a whole application over one multiplexed
 * Lettuce connection, and, on a standalone Redis, one plain connection that a decision uses when
 * it finds it free ({@link Builder#directConnection}).
 */
public final class RedisRateLimitStore implements RateLimitStore {

    private final RedisDecisions decisions;
    private final int fallbackInstances;

    private RedisRateLimitStore(RedisDecisions decisions, int fallbackInstances) {
        this.decisions = decisions;
        this.fallbackInstances = fallbackInstances;
    }

    /**
     * A builder; one of {@link Builder#redisUri}, {@link Builder#redisClient},
     * {@link Builder#redisCluster} or {@link Builder#redisClusterClient} must be set.
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * One script call for the enforced policies; when they allow the request, one more per
     * shadow policy ({@link ShadowPolicies}).
     */
    @Override
    public Decision decide(String partition, List<Charge> charges) {
        List<Charge> copy = List.copyOf(charges);
        if (!ShadowPolicies.any(copy)) {
            return decisions.decide(partition, copy, Mode.CHARGE); // no lambda to allocate
        }
        return ShadowPolicies.decide(copy, cs -> decisions.decide(partition, cs, Mode.CHARGE));
    }

    @Override
    public Decision peek(String partition, List<Charge> charges) {
        return decisions.decide(partition, List.copyOf(charges), Mode.PEEK);
    }

    /**
     * One script call, like a decision, that gives every charge back as far as its state holds it
     * and deletes a key whose state reads as absent again; while Redis cannot be reached, nothing
     * is given back and the fail modes answer, as for {@link #peek}.
     */
    @Override
    public Decision refund(String partition, List<Charge> charges) {
        return decisions.decide(partition, List.copyOf(charges), Mode.REFUND);
    }

    /**
     * Whether a circuit breaker is keeping calls away from Redis right now (from one master or
     * more, on a Cluster), for health checks and metrics.
     */
    public boolean breakerOpen() {
        return decisions.breakerOpen();
    }

    /** The store's own meters now: latency of its calls to Redis, breaker state. */
    public RedisStoreMeters meters() {
        RedisLatency latency = decisions.latency();
        long[] bounds = RedisLatency.bounds();
        long[] counts = latency.counts();
        List<Double> bucketBounds = new ArrayList<>(bounds.length);
        List<Long> bucketCounts = new ArrayList<>(bounds.length);
        long cumulative = 0;
        for (int i = 0; i < bounds.length; i++) {
            cumulative += counts[i];
            bucketBounds.add(bounds[i] / 1e9);
            bucketCounts.add(cumulative);
        }
        return new RedisStoreMeters(
                breakerOpen(),
                bucketBounds,
                bucketCounts,
                cumulative + counts[bounds.length],
                latency.sumNanos() / 1e9,
                fallbackInstances);
    }

    /** Closes the connection, and the Redis client if the builder created it. */
    @Override
    public void close() {
        decisions.close();
    }

    /** Builds a {@link RedisRateLimitStore}. Not threadsafe. */
    public static final class Builder {

        private @Nullable String redisUri;
        private @Nullable RedisClient client;
        private @Nullable List<String> clusterSeeds;
        private @Nullable RedisClusterClient clusterClient;
        private Duration topologyRefreshPeriod = Duration.ofSeconds(30);
        private String keyPrefix = "retrysafe:rl:";
        private Duration commandTimeout = Duration.ofMillis(100);
        private Duration connectTimeout = Duration.ofSeconds(1);
        private int failuresToOpen = 5;
        private Duration openFor = Duration.ofSeconds(2);
        private @Nullable Clock breakerClock;
        private Duration minimumKeyTtl = Duration.ZERO;
        private @Nullable Clock timeSource;
        private boolean batching = true;
        private boolean directConnection = true;
        private Duration directConnectionSpin = TransportSettings.defaultSpinLimit();
        private int fallbackInstances = 1;

        private Builder() {}

        /**
         * The Redis to use, as a Lettuce URI ({@code redis://host:port/db},
         * {@code rediss://...}); the store creates its own client and shuts it down on close.
         */
        public Builder redisUri(String uri) {
            RedisURI.create(uri); // fails here, with Lettuce's message, on a malformed URI
            forgetTarget();
            this.redisUri = uri;
            return this;
        }

        /**
         * A client the caller owns (and shuts down), and the URI to connect to. The store opens
         * one connection of its own and closes it on close. The client's options apply: give it
         * {@code DisconnectedBehavior.REJECT_COMMANDS} and {@code TimeoutOptions}, or calls made
         * while disconnected wait for the command timeout instead of failing at once.
         */
        public Builder redisClient(RedisClient client, String uri) {
            RedisURI.create(uri);
            forgetTarget();
            this.client = Objects.requireNonNull(client, "client");
            this.redisUri = uri;
            return this;
        }

        /**
         * A Redis Cluster, by seed nodes as Lettuce URIs ({@code redis://host:port},
         * {@code rediss://...}, credentials in each): the client learns the other nodes from
         * whichever seed answers, so a few (or a DNS name naming them all) suffice. The store
         * creates its own cluster client, which refreshes its view of the cluster when a node
         * answers {@code MOVED} or {@code ASK}, keeps failing to reconnect or names a slot or node
         * it does not know, and every {@link #topologyRefreshPeriod}; it shuts it down on close.
         */
        public Builder redisCluster(List<String> seedUris) {
            if (seedUris.isEmpty()) {
                throw new IllegalArgumentException("a Redis Cluster needs at least one seed node");
            }
            List<String> seeds = List.copyOf(seedUris);
            for (String seed : seeds) {
                if (RedisURI.create(seed).getDatabase() != 0) {
                    // the seed may carry user:password@: never in a message
                    throw new IllegalArgumentException(
                            "Redis Cluster has only database 0: " + seed.replaceFirst("//[^@/]*@", "//***@"));
                }
            }
            forgetTarget();
            this.clusterSeeds = seeds;
            return this;
        }

        /**
         * A Redis Cluster client the caller owns (and shuts down), with the seed nodes it was
         * created with. The store opens one connection of its own and closes it on close. The
         * client's options apply, topology refresh included: give it {@code TimeoutOptions} and
         * {@code ClusterTopologyRefreshOptions}, as {@link #redisCluster} does (but not
         * {@code DisconnectedBehavior.REJECT_COMMANDS}, which fails the first call to each master,
         * whose connection is opened on first use).
         */
        public Builder redisClusterClient(RedisClusterClient client) {
            forgetTarget();
            this.clusterClient = Objects.requireNonNull(client, "client");
            return this;
        }

        /**
         * How often a cluster client the store creates reloads the cluster's layout even when
         * nothing prompted it (default 30 s); it also reloads on redirections and reconnects.
         */
        public Builder topologyRefreshPeriod(Duration period) {
            this.topologyRefreshPeriod = StoreSettings.requirePositive("topologyRefreshPeriod", period);
            return this;
        }

        private void forgetTarget() {
            redisUri = null;
            client = null;
            clusterSeeds = null;
            clusterClient = null;
        }

        /** Put before every key (default {@code retrysafe:rl:}); no braces. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        /**
         * How long a decision waits for Redis (default 100 ms) before the policies' fail modes
         * decide; also how long it waits for a connection still being made.
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = StoreSettings.requirePositive("commandTimeout", commandTimeout);
            return this;
        }

        /**
         * How long one attempt to connect may take (default 1 s). {@link #build()} waits this
         * long at most for the first connection; later attempts run in the background.
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = StoreSettings.requirePositive("connectTimeout", connectTimeout);
            return this;
        }

        /**
         * The circuit breaker: after {@code failuresToOpen} consecutive failed calls (default 5)
         * no call goes to Redis for {@code openFor} (default 2 s); then one probe call does.
         */
        public Builder circuitBreaker(int failuresToOpen, Duration openFor) {
            if (failuresToOpen < 1) {
                throw new IllegalArgumentException("failuresToOpen must be at least 1: " + failuresToOpen);
            }
            this.failuresToOpen = failuresToOpen;
            this.openFor = StoreSettings.requirePositive("openFor", openFor);
            return this;
        }

        /**
         * The clock that times the breaker's cool-down; by default a monotonic clock (a
         * wall-clock step must not end or stretch it). Tests pass a fake one to end it at will.
         */
        public Builder breakerClock(Clock clock) {
            this.breakerClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The least time a written key lives (default none): keys otherwise expire exactly when
         * their state would read as unused. For use with {@link #timeSource}, whose time does
         * not pass with Redis's own.
         */
        public Builder minimumKeyTtl(Duration minimumKeyTtl) {
            if (minimumKeyTtl.isNegative()) {
                throw new IllegalArgumentException("minimumKeyTtl must not be negative: " + minimumKeyTtl);
            }
            this.minimumKeyTtl = minimumKeyTtl;
            return this;
        }

        /**
         * Decide at this clock's time instead of Redis's ({@code TIME}): for tests and
         * simulations only. Instances whose clocks differ would disagree about budgets, which
         * Redis's single clock rules out in production.
         */
        public Builder timeSource(Clock timeSource) {
            this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
            return this;
        }

        /**
         * Whether decisions made at the same time may go to a standalone Redis as one script call
         * (default true). A caller alone is never held back: its decision goes at once. Under
         * load, the decisions that arrive while two calls are on their way go together in the
         * next, one after the other in the script, each seeing the writes of those before it, so
         * every decision is the one it would be if they had come one by one; what is saved is a
         * command (and its round of Lettuce and Redis work) per decision. Never on a Cluster,
         * where the keys of different requests are in different slots, nor with a
         * {@link #timeSource}.
         */
        public Builder batching(boolean batching) {
            this.batching = batching;
            return this;
        }

        /**
         * Whether a decision that finds it free goes over a second, plain connection of the store's
         * own (default true), written and read on the caller's thread, rather than through Lettuce's
         * event loop: about half the latency of a lone decision. A decision that finds it taken goes
         * through Lettuce as before. Only for a standalone Redis given by {@link #redisUri} as
         * {@code redis://} (no TLS, Unix socket or Sentinel): elsewhere this setting has no effect.
         * Failures, timeouts and fail modes are the same either way.
         */
        public Builder directConnection(boolean directConnection) {
            this.directConnection = directConnection;
            return this;
        }

        /**
         * How long a decision on the direct connection polls the socket for its reply before it
         * blocks in a read (default 100 µs; zero: never polls; at most 10 ms). A blocked thread
         * is woken by the kernel when the reply comes, and that wake-up was about half of a lone
         * decision's time to a Redis on the same virtual machine (bench/ratelimit/HISTORY.md); a reply
         * polled for skips it, at the price of a busy core meanwhile. One thread at a time uses
         * the connection, so at most one core polls per store. Polling pauses for a second after
         * eight waits in a row whose reply took longer than the limit (a Redis farther away, or
         * loaded), and never happens on a single processor.
         */
        public Builder directConnectionSpin(Duration limit) {
            this.directConnectionSpin = TransportSettings.requireSpinLimit(limit);
            return this;
        }

        /**
         * How many instances share a {@linkplain dev.retrysafe.ratelimit.FailMode#LOCAL fail-local}
         * policy's quota while Redis cannot be reached (default 1): each instance then enforces
         * {@code quota / fallbackInstances} (and burst likewise; rounded down, at least 1) in its
         * own memory. Set it to the number of instances normally running; the bound on what gets
         * through is in {@code docs/rate-limits.md} ("When Redis is unreachable").
         */
        public Builder fallbackInstances(int fallbackInstances) {
            if (fallbackInstances < 1) {
                throw new IllegalArgumentException("fallbackInstances must be at least 1: " + fallbackInstances);
            }
            this.fallbackInstances = fallbackInstances;
            return this;
        }

        /**
         * Builds the store and connects, waiting at most the connect timeout; a Redis that is down
         * now is not an error (decisions follow the fail modes until it is up).
         */
        public RedisRateLimitStore build() {
            StoreSettings settings = new StoreSettings(
                    keyPrefix,
                    commandTimeout,
                    failuresToOpen,
                    openFor,
                    breakerClock == null ? MonotonicClock.clock() : breakerClock,
                    minimumKeyTtl,
                    timeSource);
            if (redisUri == null && clusterSeeds == null && clusterClient == null) {
                throw new IllegalStateException("a Redis store needs redisUri(...), redisClient(...),"
                        + " redisCluster(...) or redisClusterClient(...)");
            }
            // a call carries one time for all its requests, so a time source's calls go alone
            TransportSettings transportSettings = new TransportSettings(
                    commandTimeout,
                    connectTimeout,
                    topologyRefreshPeriod,
                    batching && timeSource == null,
                    directConnection,
                    directConnectionSpin);
            ScriptTransport transport = clusterSeeds != null || clusterClient != null
                    ? ScriptTransports.cluster(clusterSeeds, clusterClient, transportSettings)
                    : ScriptTransports.standalone(Objects.requireNonNull(redisUri), client, transportSettings);
            LocalFallback fallback =
                    new LocalFallback(fallbackInstances, timeSource == null ? Clock.systemUTC() : timeSource);
            return new RedisRateLimitStore(new RedisDecisions(settings, transport, fallback), fallbackInstances);
        }
    }
}

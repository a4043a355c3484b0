package dev.retrysafe.bench.ratelimit;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.DecisionBuffer;
import dev.retrysafe.ratelimit.InMemoryRateLimitStore;
import dev.retrysafe.ratelimit.Plans;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyMode;
import dev.retrysafe.ratelimit.PolicySet;
import dev.retrysafe.ratelimit.PolicyState;
import dev.retrysafe.ratelimit.PolicyVersions;
import dev.retrysafe.ratelimit.RateLimitHeaders;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.Scope;
import io.github.bucket4j.Bucket;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The rate-limit step of the HTTP filter ({@code RateLimitHandler.admit}), per request, after it
 * has the request's charges: {@code store.decide(partition, charges, buffer)} over one, two or
 * three policies (one per scope: API key, account, client address), then every figure the
 * headers are rendered from ({@link #headerFacts}: the closest-to-exhaustion state's limit,
 * remaining, used and reset, each enforced state's remaining and reset, the {@code Retry-After}),
 * all on the allowed path ({@link Limits}). {@code versionsShadow} is a request of an account on
 * a previous policy set (its keys carry the set's prefix) with one enforced and one shadow policy.
 * The {@code …List} rows are the same decisions through {@code decide(partition, charges)}, which
 * returns a new {@link Decision} (the filter's path before the buffer); {@code decide1Rendered}
 * also renders the header strings, as the filter does before setting them. Bucket4j's single
 * bucket per key ({@code tryConsume(1)} in a concurrent map, as {@link InMemoryBenchmark}) is the
 * peer. Not measured here: building the charges from the request
 * ({@code Plans.chargesFor}), which the filter does before the store call.
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class FilterPathBenchmark {

    private static final String PARTITION = "a:acct_bench";
    private static final Instant DEPRECATED_AT = Instant.parse("2026-01-01T00:00:00Z");

    @Param({"1", "100000"})
    public int keys;

    private String[] keyNames = new String[0];
    private InMemoryRateLimitStore store = InMemoryRateLimitStore.builder().build();
    private List<List<Charge>> one = List.of();
    private List<List<Charge>> two = List.of();
    private List<List<Charge>> three = List.of();
    private List<List<Charge>> versionsShadow = List.of();
    private final RateLimitHeaders headers = RateLimitHeaders.standard();

    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final Function<String, Bucket> newBucket = k -> Bucket.builder()
            .addLimit(Limits.bandwidth())
            .withMillisecondPrecision()
            .build();

    /** One buffer per benchmark thread, as the filter takes one per request from its pool. */
    @State(org.openjdk.jmh.annotations.Scope.Thread)
    public static class Buffer {
        final DecisionBuffer buffer = new DecisionBuffer();
    }

    @Setup(Level.Trial)
    public void setUp() {
        keyNames = Limits.keys(keys);
        store = InMemoryRateLimitStore.builder().maxKeys(6L * keys + 1000).build();
        Policy apiKey = policy("per-key", Scope.apiKey(), PolicyMode.ENFORCE);
        Policy account = policy("per-account", Scope.account(), PolicyMode.ENFORCE);
        Policy ip = policy("per-ip", Scope.ip(), PolicyMode.ENFORCE);
        PolicyVersions versions = PolicyVersions.builder()
                .current("2026-06", "https://docs.example/limits/2026-06", List.of(apiKey))
                .previous(
                        "2025-10",
                        "https://docs.example/limits/2025-10",
                        DEPRECATED_AT,
                        DEPRECATED_AT.plusSeconds(365L * 86_400),
                        List.of(apiKey, policy("trial", Scope.account(), PolicyMode.SHADOW)))
                .build();
        Plans plans = Plans.defaults();
        List<List<Charge>> ones = new ArrayList<>(keys);
        List<List<Charge>> twos = new ArrayList<>(keys);
        List<List<Charge>> threes = new ArrayList<>(keys);
        List<List<Charge>> shadowed = new ArrayList<>(keys);
        for (String key : keyNames) {
            // the filter's own charges: one per applicable policy, keyed by its scope
            RequestFacts facts = new RequestFacts(
                    key, "acct_" + key, "10.0." + key, null, "free", 1, DEPRECATED_AT.minusSeconds(86_400), null);
            List<Charge> all = plans.chargesFor(List.of(apiKey, account, ip), facts);
            ones.add(List.copyOf(all.subList(0, 1)));
            twos.add(List.copyOf(all.subList(0, 2)));
            threes.add(List.copyOf(all));
            PolicySet set = versions.setFor(facts);
            require(set.deprecated(), "the request's set is the previous one");
            shadowed.add(List.copyOf(plans.chargesFor(set, facts)));
            buckets.computeIfAbsent(key, newBucket).tryConsume(1);
        }
        one = List.copyOf(ones);
        two = List.copyOf(twos);
        three = List.copyOf(threes);
        versionsShadow = List.copyOf(shadowed);
        // track every key first: the measurement is the steady state, not the first use
        for (List<List<Charge>> requests : List.of(one, two, three, versionsShadow)) {
            for (List<Charge> request : requests) {
                require(store.decide(PARTITION, request) instanceof Decision.Allowed, "set-up decision");
            }
        }
    }

    private static Policy policy(String name, Scope scope, PolicyMode mode) {
        return Policy.builder(name)
                .scope(scope)
                .limit(Limits.RATE_UNITS, Limits.RATE_PERIOD)
                .burst(Limits.BURST)
                .mode(mode)
                .build();
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what + ": the benchmark's set-up went wrong");
        }
    }

    /**
     * What {@code RateLimitHeaders.render(DecisionBuffer)} reads from the buffer, summed so that
     * nothing is optimized away.
     */
    static long headerFacts(DecisionBuffer d) {
        long sum = d.retryAfterSeconds();
        for (int i = 0; i < d.size(); i++) {
            if (!d.policy(i).shadow()) {
                sum += d.limit(i) + d.remaining(i) + d.resetSeconds(i);
            }
        }
        int closest = d.closestToExhaustion();
        if (closest >= 0) {
            sum += d.limit(closest) + d.remaining(closest) + d.used(closest) + d.resetEpochSeconds(closest);
        }
        return sum;
    }

    /** The same figures from a {@link Decision}, as the filter read them before the buffer. */
    static long headerFacts(Decision d) {
        long sum = 0;
        for (PolicyState state : d.states()) {
            if (!state.policy().shadow()) {
                sum += state.limit() + state.remaining() + state.resetSeconds();
            }
        }
        PolicyState closest = d.closestToExhaustion();
        if (closest != null) {
            sum += closest.limit() + closest.remaining() + closest.used() + closest.resetEpochSeconds();
        }
        return sum;
    }

    private long buffered(List<List<Charge>> requests, KeyCursor cursor, Buffer b) {
        store.decide(PARTITION, requests.get(cursor.next(keys)), b.buffer);
        return headerFacts(b.buffer);
    }

    private long listed(List<List<Charge>> requests, KeyCursor cursor) {
        return headerFacts(store.decide(PARTITION, requests.get(cursor.next(keys))));
    }

    /** One policy: the filter's path. */
    @Benchmark
    public long decide1(KeyCursor cursor, Buffer b) {
        return buffered(one, cursor, b);
    }

    /** Two policies (API key, account). */
    @Benchmark
    public long decide2(KeyCursor cursor, Buffer b) {
        return buffered(two, cursor, b);
    }

    /** Three policies (API key, account, client address). */
    @Benchmark
    public long decide3(KeyCursor cursor, Buffer b) {
        return buffered(three, cursor, b);
    }

    /** A previous policy set's enforced policy plus a shadow policy (two steps: enforced, then shadow). */
    @Benchmark
    public long versionsShadow(KeyCursor cursor, Buffer b) {
        return buffered(versionsShadow, cursor, b);
    }

    /** {@link #decide1} with the header strings rendered, as the filter then sets them. */
    @Benchmark
    public Object decide1Rendered(KeyCursor cursor, Buffer b) {
        store.decide(PARTITION, one.get(cursor.next(keys)), b.buffer);
        return headers.render(b.buffer);
    }

    /** {@link #decide1} through {@code decide(partition, charges)}: a new {@code Decision}. */
    @Benchmark
    public long decide1List(KeyCursor cursor) {
        return listed(one, cursor);
    }

    @Benchmark
    public long decide2List(KeyCursor cursor) {
        return listed(two, cursor);
    }

    @Benchmark
    public long decide3List(KeyCursor cursor) {
        return listed(three, cursor);
    }

    @Benchmark
    public long versionsShadowList(KeyCursor cursor) {
        return listed(versionsShadow, cursor);
    }

    /** The peer: Bucket4j's default local bucket, one per key in a concurrent map. */
    @Benchmark
    public boolean bucket4j(KeyCursor cursor) {
        String key = keyNames[cursor.next(keys)];
        Bucket bucket = buckets.get(key);
        if (bucket == null) {
            bucket = buckets.computeIfAbsent(key, newBucket);
        }
        return bucket.tryConsume(1);
    }
}

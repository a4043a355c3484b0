package dev.retrysafe.bench.ratelimit;

import dev.retrysafe.ratelimit.ConcurrencyDecision;
import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.ConcurrencySlot;
import dev.retrysafe.ratelimit.InMemoryConcurrencyStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A concurrency limit's acquire and release per key, in process, every acquisition admitted (the
 * limit, {@value #LIMIT}, is above any thread count): a hot key shared by every thread
 * ({@code keys=1}) or 100,000 keys walked by each thread from its own offset, as in
 * {@link InMemoryBenchmark}. Every key is tracked before measuring.
 *
 * <p>{@code semaphorePerKey} is a {@link Semaphore} per key in a {@link ConcurrentHashMap}: the
 * core of Resilience4j's {@code SemaphoreBulkhead} ({@code tryAcquirePermission} is a
 * {@code Semaphore.tryAcquire}, {@code onComplete} a {@code release}), without its configuration
 * and event checks, for reference. The comparison issue 34 asks for, Resilience4j's
 * {@code Bulkhead} itself, is {@link BulkheadPeerBenchmark}.
 *
 * <p>Thread counts come from the command line ({@code -t 1}, {@code -t 2}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ConcurrencyBenchmark {

    /** Requests in flight per key: never reached by the benchmark's threads. */
    static final int LIMIT = 100;

    private static final String PARTITION = "a:bench";

    @Param({"1", "100000"})
    public int keys;

    private String[] keyNames = new String[0];
    private List<List<ConcurrencySlot>> slots = List.of();
    private final InMemoryConcurrencyStore retrysafe = InMemoryConcurrencyStore.create();
    private final ConcurrentHashMap<String, Semaphore> semaphores = new ConcurrentHashMap<>();
    private final Function<String, Semaphore> newSemaphore = k -> new Semaphore(LIMIT);

    @Setup(Level.Trial)
    public void setUp() {
        ConcurrencyPolicy policy =
                ConcurrencyPolicy.builder("bench").limit(LIMIT).build();
        List<String> names = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
            names.add("key_" + i);
        }
        Collections.shuffle(names, new Random(42));
        keyNames = names.toArray(String[]::new);
        List<List<ConcurrencySlot>> perKey = new ArrayList<>(keys);
        for (String name : keyNames) {
            List<ConcurrencySlot> one = List.of(new ConcurrencySlot(policy, name));
            perKey.add(one);
            // tracked before measuring: the steady state is a lookup and two updates
            if (retrysafe.acquire(PARTITION, one) instanceof ConcurrencyDecision.Acquired acquired) {
                acquired.permit().release();
            }
            semaphores.computeIfAbsent(name, newSemaphore);
        }
        slots = perKey;
    }

    /** Retrysafe's in-memory store: acquire every slot of a request, then release its permit. */
    @Benchmark
    public boolean retrysafe(KeyCursor cursor) {
        if (retrysafe.acquire(PARTITION, slots.get(cursor.next(keys))) instanceof ConcurrencyDecision.Acquired held) {
            held.permit().release();
            return true;
        }
        return false;
    }

    /** A semaphore per key in a concurrent map: try to acquire, then release. */
    @Benchmark
    public boolean semaphorePerKey(KeyCursor cursor) {
        Semaphore semaphore = semaphores.computeIfAbsent(keyNames[cursor.next(keys)], newSemaphore);
        if (semaphore.tryAcquire()) {
            semaphore.release();
            return true;
        }
        return false;
    }
}

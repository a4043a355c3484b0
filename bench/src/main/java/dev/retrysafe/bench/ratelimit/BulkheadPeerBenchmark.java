package dev.retrysafe.bench.ratelimit;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Resilience4j's {@code Bulkhead} per key in a {@link ConcurrentHashMap}, as its users build
 * per-key bulkheads: {@code tryAcquirePermission} then {@code onComplete}, with the same keys,
 * walk and limit as {@link ConcurrencyBenchmark}, which it is compared with (a separate class so
 * that a run can select either by name). Its {@code onComplete} is not idempotent, where a
 * Retrysafe permit's {@code release} is (an atomic flag per permit).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class BulkheadPeerBenchmark {

    @Param({"1", "100000"})
    public int keys;

    private String[] keyNames = new String[0];
    private final ConcurrentHashMap<String, Bulkhead> bulkheads = new ConcurrentHashMap<>();
    private final BulkheadConfig config = BulkheadConfig.custom()
            .maxConcurrentCalls(ConcurrencyBenchmark.LIMIT)
            .maxWaitDuration(Duration.ZERO)
            .build();
    private final Function<String, Bulkhead> newBulkhead = k -> Bulkhead.of(k, config);

    @Setup(Level.Trial)
    public void setUp() {
        List<String> names = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
            names.add("key_" + i);
        }
        Collections.shuffle(names, new Random(42));
        keyNames = names.toArray(String[]::new);
        for (String name : keyNames) {
            bulkheads.computeIfAbsent(name, newBulkhead);
        }
    }

    /** Resilience4j: try to acquire the key's bulkhead, then complete the call. */
    @Benchmark
    public boolean resilience4jBulkhead(KeyCursor cursor) {
        Bulkhead bulkhead = bulkheads.computeIfAbsent(keyNames[cursor.next(keys)], newBulkhead);
        if (bulkhead.tryAcquirePermission()) {
            bulkhead.onComplete();
            return true;
        }
        return false;
    }
}

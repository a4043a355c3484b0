package dev.retrysafe.bench.ratelimit;

import dev.retrysafe.common.MonotonicClock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The price of reading the clock, which every in-memory decision pays once: the floor under
 * any library's time per decision on this machine.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ClockBenchmark {

    /** What Retrysafe's system clock and Bucket4j's default time meter read. */
    @Benchmark
    public long currentTimeMillis() {
        return System.currentTimeMillis();
    }

    /**
     * What Resilience4j reads: the JVM's monotonic counter, read through Retrysafe's one seam for
     * it (a static call the JIT inlines, so the price measured is the counter's).
     */
    @Benchmark
    public long nanoTime() {
        return MonotonicClock.nanoTime();
    }
}

package dev.retrysafe.bench.delivery;

import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Joins the producers' commit logs with the receiver's first arrivals and prints one
 * machine-readable line:
 *
 * <pre>
 * BENCH committed=N committed_per_s=.. arrived=M deliveries_per_s=.. delivered_of_committed=K missing=..
 *       p50_ms=.. p90_ms=.. p99_ms=.. p999_ms=.. max_ms=.. min_ms=.. arrivals_span_ms=.. arrivals_span_per_s=..
 *       p99_by_fifth_ms=../../../../..
 * </pre>
 *
 * {@code committed}: events committed within [from, to); {@code arrived}: events whose first
 * arrival at the receiver lies within [from, to) (the sustained rate); latencies: first arrival
 * minus commit, for events committed within the window (an arrival can precede the producer's
 * own record of the commit by a little: the dispatcher may see the commit before the producer
 * gets the answer to its COMMIT). {@code arrivals_span_per_s}: the arrivals in the window over
 * the time from the first to the last of them (the rate of a drain). {@code p99_by_fifth_ms}: the
 * p99 latency of the events committed in each fifth of the window, in order: a window that starts
 * while the dispatchers still work off a backlog left by the warm-up (a cold start) shows as a
 * first fifth far above the last, which the whole window's p99 alone would hide.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.retrysafe.bench.delivery.Analyze --arrivals FILE \
 *     --commits FILE,FILE --from EPOCH_MS --to EPOCH_MS
 * </pre>
 */
public final class Analyze {

    /** The parts of the window whose p99 latencies are reported each. */
    private static final int FIFTHS = 5;

    private Analyze() {}

    /** Prints the analysis. */
    public static void main(String[] args) throws Exception {
        Options o = new Options(args);
        long from = o.longValue("from") * 1_000L;
        long to = o.longValue("to") * 1_000L;
        Map<String, Long> arrivals = read(Path.of(o.string("arrivals")));
        long arrivedInWindow =
                arrivals.values().stream().filter(t -> t >= from && t < to).count();
        long firstArrival = arrivals.values().stream()
                .filter(t -> t >= from && t < to)
                .mapToLong(Long::longValue)
                .min()
                .orElse(0);
        long lastArrival = arrivals.values().stream()
                .filter(t -> t >= from && t < to)
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
        long committed = 0;
        long missing = 0;
        Latencies latencies = new Latencies();
        Latencies[] byFifth = new Latencies[FIFTHS];
        Arrays.setAll(byFifth, f -> new Latencies());
        for (String file : o.string("commits").split(",")) {
            for (Map.Entry<String, Long> c : read(Path.of(file)).entrySet()) {
                long commit = c.getValue();
                if (commit < from || commit >= to) {
                    continue;
                }
                committed++;
                Long arrival = arrivals.get(c.getKey());
                if (arrival == null) {
                    missing++;
                    continue;
                }
                latencies.add(arrival - commit);
                byFifth[(int) Math.min(FIFTHS - 1, (commit - from) * FIFTHS / (to - from))].add(arrival - commit);
            }
        }
        latencies.sort();
        StringBuilder fifths = new StringBuilder();
        for (int f = 0; f < FIFTHS; f++) {
            byFifth[f].sort();
            fifths.append(f == 0 ? "" : "/").append(byFifth[f].ms(0.99));
        }
        double seconds = (to - from) / 1e6;
        System.out.printf(
                Locale.ROOT,
                "BENCH committed=%d committed_per_s=%.1f arrived=%d deliveries_per_s=%.1f "
                        + "delivered_of_committed=%d missing=%d p50_ms=%s p90_ms=%s p99_ms=%s p999_ms=%s max_ms=%s min_ms=%s "
                        + "arrivals_span_ms=%.1f arrivals_span_per_s=%.1f p99_by_fifth_ms=%s%n",
                committed,
                committed / seconds,
                arrivedInWindow,
                arrivedInWindow / seconds,
                latencies.size,
                missing,
                latencies.ms(0.50),
                latencies.ms(0.90),
                latencies.ms(0.99),
                latencies.ms(0.999),
                latencies.ms(1.0),
                latencies.ms(0.0),
                (lastArrival - firstArrival) / 1000.0,
                lastArrival > firstArrival ? (arrivedInWindow - 1) / ((lastArrival - firstArrival) / 1e6) : 0.0,
                fifths);
    }

    /** Latencies in microseconds, as many as come. */
    private static final class Latencies {
        long[] values = new long[16];
        int size;

        void add(long micros) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = micros;
        }

        void sort() {
            Arrays.sort(values, 0, size);
        }

        /** The {@code q} quantile in milliseconds once sorted (0: the least, 1: the most), or "-" when empty. */
        String ms(double q) {
            if (size == 0) {
                return "-";
            }
            int index = (int) Math.min(size - 1, Math.max(0, Math.ceil(q * size) - 1));
            return format(values[index]);
        }
    }

    private static String format(long micros) {
        return String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }

    private static Map<String, Long> read(Path file) throws Exception {
        Map<String, Long> out = new HashMap<>();
        try (BufferedReader r = Files.newBufferedReader(file)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                int space = line.indexOf(' ');
                if (space > 0) {
                    out.put(
                            line.substring(0, space),
                            Long.parseLong(line.substring(space + 1).trim()));
                }
            }
        }
        return out;
    }
}

package dev.retrysafe.bench.herd;

import dev.retrysafe.client.RetryPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The herd simulation of issue 7: {@value #CLIENTS} clients rejected at the same instant with the
 * same {@code Retry-After} retry against a server that takes {@value #RATE} requests per second,
 * with no jitter, equal jitter, full jitter under a plain floor or added on top, and ours (the client module's
 * {@code RetryPolicy.waitBefore} with its default policy and {@code RetryBudget}). Prints, per
 * scenario and strategy, the peak and mean arrivals per 100 ms, their ratio, the retries sent and
 * how many clients got through; writes the arrivals as an SVG. Pure simulation in virtual time:
 * no network, no clock, deterministic for a seed.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.retrysafe.bench.herd.HerdSimulation [--seed N] [--svg FILE]
 * </pre>
 */
public final class HerdSimulation {

    static final int CLIENTS = 1_000;
    static final int RATE = 100;
    /** The server's burst: 100 ms of its rate. */
    static final int BURST = 10;
    /** Attempts per client, the rejected first one included: the client's default. */
    static final int MAX_ATTEMPTS = RetryPolicy.defaults().maxAttempts();

    static final Duration HORIZON = Duration.ofSeconds(40);
    private static final String[] COLORS = {"#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#1f77b4", "#2ca02c"};

    private HerdSimulation() {}

    /** Runs both scenarios, prints the table, writes the SVG. */
    public static void main(String[] args) throws IOException {
        Map<String, String> options = options(args);
        long seed = Long.parseLong(options.getOrDefault("--seed", "42"));
        Path svg = Path.of(options.getOrDefault("--svg", "docs/herd-simulation.svg"));
        RetryPolicy policy = RetryPolicy.defaults();
        List<Strategy> strategies = List.of(
                Strategy.noJitter(policy),
                Strategy.equalJitter(policy),
                Strategy.fullJitterPlainFloor(policy),
                Strategy.fullJitterOnTop(policy),
                Strategy.ours(policy),
                Strategy.oursSharedBudget(policy));

        System.out.printf(
                Locale.ROOT,
                "herd: %d clients rejected at t=0, server %d req/s (burst %d), %d attempts each," + " seed %d%n",
                CLIENTS,
                RATE,
                BURST,
                MAX_ATTEMPTS,
                seed);
        List<Svg.Panel> panels = new ArrayList<>();
        for (Duration retryAfter : List.of(Duration.ofSeconds(1), Duration.ofSeconds(10))) {
            System.out.printf(Locale.ROOT, "%nRetry-After: %d s%n", retryAfter.toSeconds());
            System.out.printf(
                    Locale.ROOT,
                    "%-40s %6s %8s %12s %9s %9s %7s %8s %9s%n",
                    "strategy",
                    "peak",
                    "mean",
                    "peak/mean",
                    "retries",
                    "rejected",
                    "served",
                    "gave up",
                    "last (s)");
            List<Svg.Series> series = new ArrayList<>();
            int noJitterPeak = 0;
            for (int i = 0; i < strategies.size(); i++) {
                Strategy s = strategies.get(i);
                Herd.Result r = Herd.run(s, CLIENTS, retryAfter, MAX_ATTEMPTS, RATE, BURST, seed, HORIZON);
                if (i == 0) {
                    noJitterPeak = r.peak();
                }
                System.out.printf(
                        Locale.ROOT,
                        "%-40s %6d %8.1f %12.1f %9d %9d %7d %8d %9.1f   peak %4.1fx lower than no jitter%n",
                        s.name(),
                        r.peak(),
                        r.mean(),
                        r.peak() / r.mean(),
                        r.retries(),
                        r.rejectedRetries(),
                        r.served(),
                        r.gaveUp(),
                        r.lastArrivalMillis() / 1000.0,
                        (double) noJitterPeak / r.peak());
                series.add(new Svg.Series(s.name(), COLORS[i % COLORS.length], r.arrivals()));
            }
            panels.add(new Svg.Panel("Retry-After: " + retryAfter.toSeconds() + " s", series));
        }
        int buckets = (int) (HORIZON.toMillis() / Herd.BUCKET_MILLIS);
        String title = String.format(
                Locale.ROOT,
                "The herd: %,d clients rejected at t = 0, server takes %d requests/s " + "(seed %d)",
                CLIENTS,
                RATE,
                seed);
        Path parent = svg.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(svg, Svg.render(title, panels, buckets), StandardCharsets.UTF_8);
        System.out.println();
        System.out.println("wrote " + svg);
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new java.util.HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].equals("--seed") && !args[i].equals("--svg")) {
                throw new IllegalArgumentException("unknown option " + args[i] + " (options: --seed N, --svg FILE)");
            }
            options.put(args[i], args[i + 1]);
        }
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException("option " + args[args.length - 1] + " needs a value");
        }
        return options;
    }
}

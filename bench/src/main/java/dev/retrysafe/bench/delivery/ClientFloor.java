package dev.retrysafe.bench.delivery;

import com.sun.management.OperatingSystemMXBean;
import dev.retrysafe.common.MonotonicClock;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.http.HttpMethod;

/**
 * Jetty's HTTP client alone, at the load tool's concurrency: {@code connections} virtual threads,
 * each POSTing the ceiling's payload with its headers (the same as {@code ceiling.lua}) to the
 * receiver and waiting for the answer, one after the other, with nothing else to do: no database,
 * no guard, no signing. It is a reference for how much of the gap between the dispatchers and wrk
 * the JVM client's own cost explains; it is not the dispatchers' configuration
 * ({@code HttpAttemptSender} keeps 10 connections per destination per instance, drops content
 * decoders and waits on a listener), so it bounds them only roughly.
 *
 * <p>Usage: {@code ClientFloor <port> <connections> <warm-up s> <measured s>}. Prints
 * {@code MEASURING} when the measured window starts, then one line:
 * {@code BENCH requests=.. duration_s=.. rps=.. errors=.. cpu_us_per_request=..}, the last being this
 * JVM's own CPU time over the measured window per successful request. Exits with 1 if any request
 * failed or none succeeded, so that a broken receiver is not reported as a slow one. Loopback only.
 */
public final class ClientFloor {

    private static final String TIME = "2026-12-02T18:00:00.123456Z";
    private static final byte[] BODY = ("{\"id\":\"evt_a_123456\",\"type\":\"payment.succeeded\",\"timestamp\":\""
                    + TIME
                    + "\",\"data\":{\"id\":\"pay_01kbfz3x8m2c7v9q4w6e1r5t0y\",\"object\":\"payment\",\"amount\":500,"
                    + "\"amount_refunded\":0,\"currency\":\"eur\",\"status\":\"succeeded\",\"description\":\"bench\","
                    + "\"created_at\":\"" + TIME + "\"}}")
            .getBytes(StandardCharsets.UTF_8);

    private ClientFloor() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: ClientFloor <port> <connections> <warm-up s> <measured s>");
        }
        URI target = URI.create("http://127.0.0.1:" + Integer.parseInt(args[0]) + "/hooks/0");
        int connections = Integer.parseInt(args[1]);
        Duration warmUp = Duration.ofSeconds(Long.parseLong(args[2]));
        Duration measured = Duration.ofSeconds(Long.parseLong(args[3]));

        HttpClient client = new HttpClient();
        client.setMaxConnectionsPerDestination(connections);
        client.setFollowRedirects(false);
        client.start();
        try {
            LongAdder requests = new LongAdder();
            LongAdder errors = new LongAdder();
            AtomicLong phase = new AtomicLong(); // 0 warm-up, 1 measured, 2 stop
            List<Thread> senders = new ArrayList<>(connections);
            for (int i = 0; i < connections; i++) {
                senders.add(Thread.ofVirtual().name("floor-" + i).start(() -> {
                    while (phase.get() < 2) {
                        boolean ok;
                        try {
                            ContentResponse response = client.newRequest(target)
                                    .method(HttpMethod.POST)
                                    .headers(h -> h.put("User-Agent", "Retrysafe-Webhooks/0.1.0-SNAPSHOT")
                                            .put("webhook-id", "msg_01kbfz3x8m2c7v9q4w6e1r5t0y")
                                            .put("webhook-timestamp", "1796237015")
                                            .put(
                                                    "webhook-signature",
                                                    "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="))
                                    .body(new BytesRequestContent("application/json", BODY))
                                    .timeout(5, TimeUnit.SECONDS)
                                    .send();
                            ok = response.getStatus() / 100 == 2;
                        } catch (Exception e) {
                            ok = false;
                        }
                        if (phase.get() == 1) {
                            (ok ? requests : errors).increment();
                        }
                    }
                }));
            }
            Thread.sleep(warmUp.toMillis());
            OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            phase.set(1);
            long start = MonotonicClock.nanoTime();
            long cpuStart = os.getProcessCpuTime();
            System.out.println("MEASURING");
            System.out.flush();
            Thread.sleep(measured.toMillis());
            phase.set(2);
            double seconds = (MonotonicClock.nanoTime() - start) / 1e9;
            long cpuNanos = os.getProcessCpuTime() - cpuStart;
            long done = requests.sum();
            long failed = errors.sum();
            for (Thread sender : senders) {
                sender.join(Duration.ofSeconds(10));
            }
            System.out.printf(
                    "BENCH requests=%d duration_s=%.3f rps=%.1f errors=%d cpu_us_per_request=%.0f%n",
                    done, seconds, done / seconds, failed, done == 0 ? 0.0 : cpuNanos / 1e3 / done);
            if (failed > 0 || done == 0) {
                System.exit(1);
            }
        } finally {
            client.stop();
        }
    }
}

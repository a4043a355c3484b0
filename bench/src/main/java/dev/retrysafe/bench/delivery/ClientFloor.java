package dev.retrysafe.bench.delivery;

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
 * The floor of any dispatcher written on the JVM with Jetty's HTTP client, as {@code HttpAttemptSender}
 * is: {@code connections} virtual threads, each POSTing the ceiling's payload with its headers
 * (the same as {@code ceiling.lua}) to the receiver and waiting for the answer, one after the other,
 * with nothing else to do: no database, no guard, no signing. What wrk reaches on the same receiver
 * is the ceiling; a dispatcher cannot send faster than this with this client on this machine, so
 * {@code floor / ceiling} bounds {@code sustained / ceiling} from above.
 *
 * <p>Usage: {@code ClientFloor <port> <connections> <warm-up s> <measured s>}. Prints one line:
 * {@code BENCH requests=.. duration_s=.. rps=.. errors=..}. Loopback only.
 */
public final class ClientFloor {

    private static final String TIME = "2026-12-02T18:00:00.123456Z";
    private static final byte[] BODY = ("{\"id\":\"evt_a_123456\",\"type\":\"payment.succeeded\",\"timestamp\":\"" + TIME
            + "\",\"data\":{\"id\":\"pay_01kbfz3x8m2c7v9q4w6e1r5t0y\",\"object\":\"payment\",\"amount\":500,"
            + "\"amount_refunded\":0,\"currency\":\"eur\",\"status\":\"succeeded\",\"description\":\"bench\","
            + "\"created_at\":\"" + TIME + "\"}}").getBytes(StandardCharsets.UTF_8);

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
                            ContentResponse response = client.newRequest(target).method(HttpMethod.POST)
                                    .headers(h -> h.put("User-Agent", "Retrysafe-Webhooks/0.1.0-SNAPSHOT")
                                            .put("webhook-id", "msg_01kbfz3x8m2c7v9q4w6e1r5t0y")
                                            .put("webhook-timestamp", "1796237015")
                                            .put("webhook-signature", "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="))
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
            phase.set(1);
            long start = System.nanoTime();
            Thread.sleep(measured.toMillis());
            phase.set(2);
            double seconds = (System.nanoTime() - start) / 1e9;
            long done = requests.sum();
            for (Thread sender : senders) {
                sender.join(Duration.ofSeconds(10));
            }
            System.out.printf("BENCH requests=%d duration_s=%.3f rps=%.1f errors=%d%n", done, seconds, done / seconds,
                    errors.sum());
        } finally {
            client.stop();
        }
    }
}

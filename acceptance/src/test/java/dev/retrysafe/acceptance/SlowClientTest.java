package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.testkit.PostgresTestDatabase;
import dev.retrysafe.testkit.RawHttp;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile clients against the shipped server at {@code -Xmx512m} (issue 31): one free-plan key
 * opens {@value #ATTACKERS} keyed {@code POST /v1/payments}, each declaring a 1 MiB body and
 * sending one byte every {@value #DRIP_MILLIS} ms, while {@value #HEADER_DRIBBLERS} more sockets
 * trickle their headers, {@value #LEAVERS} clients of a third key leave mid-body with a reset,
 * and a probe keeps calling {@code /health} and another account's payments. Requests past the key's budget (its rate limit, its requests in flight) are
 * {@code 429}; the rest end with {@code 408} at the body deadline; the probe is answered within
 * a second throughout; the live heap grows by less than {@value #HEAP_GROWTH_BOUND_MB} MB; the
 * clients gone mid-body are counted in {@code /metrics}; the log has no {@code ERROR} and no
 * {@code OutOfMemoryError}. On the embedded database and on
 * PostgreSQL.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SlowClientTest {

    static final int ATTACKERS = 1000;
    static final int HEADER_DRIBBLERS = 300;
    /** Clients that leave mid-body, with a reset. */
    static final int LEAVERS = 50;

    static final int DRIP_MILLIS = 2000;
    /** How long an attacker waits for its answer, at most. */
    static final Duration ANSWER_WAIT = Duration.ofSeconds(45);
    /** How long the attackers take to arrive, in ten waves. */
    static final Duration ATTACK_RAMP = Duration.ofSeconds(1);
    /**
     * The body deadline the server is given: every admitted attacker must end at it. (The
     * minimum rate is off here, so that the deadline alone ends them; RequestBodyLimitsTest
     * shows the rate rule.)
     */
    static final Duration BODY_TIMEOUT = Duration.ofSeconds(6);
    /**
     * Live heap (after a full collection) during the attack, less before it. Measured 2026-12-07:
     * +5 MB on H2, +4 MB on PostgreSQL (16 MB before, 21-22 MB during); the bound leaves room for
     * the JIT's and the pools' own growth on a slower machine, and is far below the 308 MB that
     * 300 such requests took before the body filter (issue 31).
     */
    static final long HEAP_GROWTH_BOUND_MB = 32;

    private static final Duration PROBE_LIMIT = Duration.ofSeconds(1);
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "postgresql"})
    void slowAndLyingClientsCostLittleAndOthersKeepBeingServed(String database) throws Exception {
        PostgresTestDatabase db = database.equals("postgresql") ? PostgresTestDatabase.create() : null;
        String attackerKey = "rs_" + UUID.randomUUID().toString().replace("-", "") + "Ab9";
        String otherKey = "rs_" + UUID.randomUUID().toString().replace("-", "") + "Cd7";
        String leaverKey = "rs_" + UUID.randomUUID().toString().replace("-", "") + "Ef5";
        int port = ServerProcess.freePort();
        Path config = dir.resolve("retrysafe.yaml");
        Files.writeString(config, """
                shutdown:
                  timeout: 5s
                limits:
                  body_timeout: %ds
                  min_body_rate: 0
                """.formatted(BODY_TIMEOUT.toSeconds()), StandardCharsets.UTF_8);
        Map<String, String> settings = new HashMap<>();
        settings.put("PORT", Integer.toString(port));
        settings.put("RETRYSAFE_HOST", "127.0.0.1");
        settings.put("RETRYSAFE_DATA_DIR", dir.resolve("data").toString());
        settings.put("RETRYSAFE_BANK_LATENCY_MS", "0");
        settings.put("RETRYSAFE_BOOTSTRAP_API_KEYS", attackerKey + "," + otherKey + "," + leaverKey);
        if (db != null) {
            settings.put("RETRYSAFE_DATABASE_URL", db.jdbcUrl());
            settings.put("RETRYSAFE_DATABASE_USER", db.user());
        }
        List<String> command = new ArrayList<>(ServerProcess.java("--config", config.toString()));
        command.replaceAll(arg -> arg.startsWith("-Xmx") ? "-Xmx512m" : arg);
        URI base = ServerProcess.base(port);

        ServerProcess server =
                ServerProcess.start("server-" + database, command, ServerProcess.environment(settings), dir, dir);
        Queue<Socket> open = new ConcurrentLinkedQueue<>();
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        ScheduledExecutorService pace = Executors.newScheduledThreadPool(2);
        ScheduledExecutorService drips = Executors.newScheduledThreadPool(2);
        AtomicBoolean attacking = new AtomicBoolean(true);
        try {
            server.awaitReady(port, Duration.ofSeconds(60));
            // warm up: the paths the probe takes, so that JIT compilation is not what is measured
            Probe probe = new Probe(base, otherKey);
            for (int i = 0; i < 20; i++) {
                probe.once();
            }
            long heapBefore = liveHeapBytes(server);

            for (int i = 0; i < HEADER_DRIBBLERS; i++) {
                threads.submit(() -> dribbleHeaders(port, open, attacking));
            }
            List<Future<?>> leavers = new ArrayList<>();
            for (int i = 0; i < LEAVERS; i++) {
                leavers.add(threads.submit(() -> leaveMidBody(port, leaverKey)));
            }
            List<CompletableFuture<Integer>> attacks = new ArrayList<>();
            AtomicInteger answered = new AtomicInteger();
            Queue<Duration> timedOutAfter = new ConcurrentLinkedQueue<>();
            // the attackers come in ten waves over a second: on one machine of two cores, all at once
            // measured the client's own burst of threads and connects as much as the server
            for (int i = 0; i < ATTACKERS; i++) {
                CompletableFuture<Integer> attack = new CompletableFuture<>();
                attacks.add(attack);
                pace.schedule(
                        () -> threads.submit(() -> {
                            try {
                                long started = System.nanoTime();
                                int status = attack(port, attackerKey, open, drips);
                                if (status == 408) {
                                    timedOutAfter.add(Duration.ofNanos(System.nanoTime() - started));
                                }
                                answered.incrementAndGet();
                                attack.complete(status);
                            } catch (Throwable t) {
                                attack.completeExceptionally(t);
                            }
                        }),
                        ATTACK_RAMP.toMillis() * (i / (ATTACKERS / 10)) / 10,
                        TimeUnit.MILLISECONDS);
            }
            // four rounds a second: 40 payments per 10 s, well within the other key's budget
            ScheduledFuture<?> probing = pace.scheduleAtFixedRate(probe::once, 0, 250, TimeUnit.MILLISECONDS);

            // the heap while the admitted attackers hold their requests open, before their deadline:
            // once the refused ones (at least 900 of them) have their answers
            await().atMost(BODY_TIMEOUT.minusSeconds(2).plus(ATTACK_RAMP)).until(() -> answered.get() >= 900);
            long heapDuring = liveHeapBytes(server);
            assertThat(answered.get())
                    .as("measured while the admitted ones still wait")
                    .isLessThan(ATTACKERS);
            Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
            for (CompletableFuture<Integer> attack : attacks) {
                statuses.merge(attack.get(60, TimeUnit.SECONDS), 1, Integer::sum);
            }
            attacking.set(false);
            probing.cancel(false);
            for (Future<?> leaver : leavers) {
                leaver.get(30, TimeUnit.SECONDS);
            }
            long gone = metric(base, "retrysafe_http_request_bodies_refused_total{reason=\"client_gone\"}");

            long growthMb = (heapDuring - heapBefore) / (1024 * 1024);
            System.out.printf(
                    "SlowClientTest[%s]: statuses %s, live heap %d MB before, %d MB during (+%d MB),"
                            + " probe: %d calls, slowest %d ms; %d of %d leavers counted as gone%n",
                    database,
                    statuses,
                    heapBefore >> 20,
                    heapDuring >> 20,
                    growthMb,
                    probe.calls(),
                    probe.slowest().toMillis(),
                    gone,
                    LEAVERS);
            assertThat(statuses.keySet())
                    .as("every attacker is refused (429) or timed out (408): %s", statuses)
                    .isSubsetOf(429, 408);
            assertThat(statuses.getOrDefault(408, 0))
                    .as("the admitted ones end at the body deadline")
                    .isBetween(1, 100);
            assertThat(statuses.getOrDefault(429, 0))
                    .as("the key's budget refuses the rest")
                    .isGreaterThanOrEqualTo(900);
            // the deadline counts from the headers; the 408 comes at it (a connect that waited in
            // the accept queue adds to what the client sees, never takes away)
            assertThat(timedOutAfter)
                    .allSatisfy(took -> assertThat(took)
                            .isGreaterThanOrEqualTo(BODY_TIMEOUT.minusMillis(100))
                            .isLessThan(BODY_TIMEOUT.plusSeconds(5)));
            assertThat(probe.failures()).as("the probe's failed or slow calls").isEmpty();
            assertThat(probe.calls()).as("the probe ran throughout").isGreaterThan(10);
            assertThat(growthMb).as("live heap growth in MB").isLessThan(HEAP_GROWTH_BOUND_MB);
            assertThat(server.isAlive()).isTrue();
            String log = server.stdout() + server.stderr();
            assertThat(log).as("no OutOfMemoryError").doesNotContain("OutOfMemoryError");
            assertThat(log.lines().filter(l -> l.contains("ERROR")))
                    .as("no ERROR line")
                    .isEmpty();
            assertThat(gone).as("clients gone mid-body, counted").isBetween(1L, (long) LEAVERS);
        } finally {
            // whatever failed, every client thread ends: its loop stops and its socket closes
            attacking.set(false);
            open.forEach(SlowClientTest::closeQuietly);
            pace.shutdownNow();
            drips.shutdownNow();
            threads.shutdownNow();
            assertThat(threads.awaitTermination(30, TimeUnit.SECONDS))
                    .as("client threads ended")
                    .isTrue();
            server.terminate(Duration.ofSeconds(15));
            server.close();
            if (db != null) {
                db.close();
            }
        }
    }

    /**
     * One keyed payment declaring 1 MiB, one byte every {@link #DRIP_MILLIS} (written by {@code
     * drips}, so that the read of the answer is never cut short: a read timeout in the middle of
     * an answer's head would lose the bytes read so far): the status it ends with (-1 when the
     * server closed without an answer, -2 when no answer came in {@link #ANSWER_WAIT}).
     */
    private static int attack(int port, String key, Queue<Socket> open, ScheduledExecutorService drips)
            throws IOException {
        Socket socket = connect(port);
        open.add(socket);
        socket.setSoTimeout((int) ANSWER_WAIT.toMillis());
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
                        + "\r\nIdempotency-Key: " + UUID.randomUUID() + "\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 1048576\r\n\r\n{")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        ScheduledFuture<?> drip = drips.scheduleWithFixedDelay(
                () -> {
                    try {
                        out.write(' ');
                        out.flush();
                    } catch (IOException closed) {
                        // the server answered and closed: the answer is read below; no more drips
                        throw new UncheckedIOException(closed);
                    }
                },
                DRIP_MILLIS,
                DRIP_MILLIS,
                TimeUnit.MILLISECONDS);
        try {
            return RawHttp.read(socket.getInputStream(), false).status();
        } catch (ProtocolException garbled) {
            throw garbled; // not an answer at all: the test fails with what came
        } catch (SocketTimeoutException none) {
            return -2;
        } catch (IOException closedWithoutAnswer) {
            return -1;
        } finally {
            drip.cancel(false);
            closeQuietly(socket);
        }
    }

    /**
     * A keyed payment that sends half its body, waits half a second for an answer that cannot
     * come, and leaves with a reset (no orderly close).
     */
    private static Void leaveMidBody(int port, String key) throws IOException {
        try (Socket socket = connect(port)) {
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
                            + "\r\nIdempotency-Key: " + UUID.randomUUID() + "\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 200\r\n\r\n{\"amount\": 100, ")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            try {
                socket.getInputStream().read();
            } catch (SocketTimeoutException expected) {
                // no answer while the body is unfinished: now leave
            }
            socket.setSoLinger(true, 0);
        }
        return null;
    }

    private static long metric(URI base, String series) throws IOException, InterruptedException {
        String text = HTTP.send(
                        HttpRequest.newBuilder(base.resolve("/metrics")).build(), HttpResponse.BodyHandlers.ofString())
                .body();
        return text.lines()
                .filter(l -> l.startsWith(series + " "))
                .findFirst()
                .map(l -> (long)
                        Double.parseDouble(l.substring(series.length() + 1).trim()))
                .orElseThrow(() -> new AssertionError("no " + series + " in /metrics"));
    }

    /** A request whose head never ends: one byte every second until the attack is over. */
    private static Void dribbleHeaders(int port, Queue<Socket> open, AtomicBoolean attacking) throws IOException {
        Socket socket = connect(port);
        open.add(socket);
        socket.setSoTimeout(1000);
        OutputStream out = socket.getOutputStream();
        out.write("POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
        while (attacking.get()) {
            try {
                out.write('a');
                out.flush();
                if (socket.getInputStream().read() < 0) {
                    return null; // closed by the server
                }
            } catch (SocketTimeoutException quiet) {
                // the pace: one byte per second
            } catch (IOException closed) {
                return null;
            }
        }
        return null;
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        return socket;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a socket the server closed
        }
    }

    /** The heap in use right after a full collection of {@code server}'s JVM, read with jcmd. */
    private static long liveHeapBytes(ServerProcess server) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        run(jcmd, Long.toString(server.pid()), "GC.run");
        String info = run(jcmd, Long.toString(server.pid()), "GC.heap_info");
        // one line per generation (the young one, the tenured one): their sum is the heap in use
        Matcher used = Pattern.compile("total (\\d+)K, used (\\d+)K").matcher(info);
        long kib = 0;
        int generations = 0;
        while (used.find()) {
            kib += Long.parseLong(used.group(2));
            generations++;
        }
        if (generations == 0) {
            throw new AssertionError("no heap figures in jcmd's GC.heap_info:\n" + info);
        }
        return kib * 1024;
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed:\n" + output);
        }
        return output;
    }

    /** Calls {@code /health} and a payment of another account, one after the other; notes what was slow or failed. */
    private static final class Probe {
        private final URI base;
        private final String key;
        private final Queue<String> failures = new ConcurrentLinkedQueue<>();
        private volatile long calls;
        private volatile long slowestNanos;

        Probe(URI base, String key) {
            this.base = base;
            this.key = key;
        }

        void once() {
            call(HttpRequest.newBuilder(base.resolve("/health")).GET(), 200);
            call(
                    HttpRequest.newBuilder(base.resolve("/v1/payments"))
                            .header("Authorization", "Bearer " + key)
                            .header("Idempotency-Key", UUID.randomUUID().toString())
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 100, \"currency\": \"eur\"}")),
                    201);
        }

        private void call(HttpRequest.Builder request, int expected) {
            long started = System.nanoTime();
            try {
                HttpResponse<String> answer =
                        HTTP.send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                long took = System.nanoTime() - started;
                calls++;
                slowestNanos = Math.max(slowestNanos, took);

                if (answer.statusCode() != expected || took > PROBE_LIMIT.toNanos()) {
                    failures.add(
                            answer.request().uri() + ": " + answer.statusCode() + " in " + took / 1_000_000 + " ms");
                }
            } catch (IOException | InterruptedException e) {
                failures.add(request.build().uri() + ": " + e);
            }
        }

        long calls() {
            return calls;
        }

        Duration slowest() {
            return Duration.ofNanos(slowestNanos);
        }

        List<String> failures() {
            return List.copyOf(failures);
        }
    }
}

package dev.retrysafe.acceptance;

import static org.awaitility.Awaitility.await;

import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.testkit.PostgresServerProcess;
import dev.retrysafe.testkit.RedisServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * What the fault-injection suite runs and breaks: a private PostgreSQL server and a private Redis
 * (so stopping them disturbs no other test on the machine), {@value #INSTANCES} server processes
 * on one database sharing their rate-limit counters in Redis, and nginx in front of them on one
 * port. Three accounts: {@code load} (enterprise plan, for the mixed load), {@code probe} (free
 * plan: its traffic measures the shared rate limit) and {@code canary} (free plan: the requests
 * that measure recovery). {@link #close()} stops everything, also after a failure. Not threadsafe
 * except where a method says so.
 */
final class FaultCluster implements AutoCloseable {

    static final int INSTANCES = 3;
    /** Idempotency-key and job lease of every instance: a pause longer than this loses them. */
    static final Duration LEASE = Duration.ofSeconds(3);
    /** The {@code probe} policy: its quota per window, and its burst (the most allowed at once). */
    static final long PROBE_QUOTA = 20;

    static final Duration PROBE_WINDOW = Duration.ofSeconds(10);
    static final long PROBE_BURST = 4;
    static final String PROBE_POLICY = "probe";
    /**
     * {@code rate_limits.redis_timeout}. Above the default (100 ms) on purpose: on a small machine
     * shared by three JVMs, one of them starting, a Redis round trip can take longer than 100 ms,
     * and the policy then fails open although Redis is up (docs/operations.md).
     */
    static final Duration REDIS_TIMEOUT = Duration.ofMillis(500);

    private static final Duration START_DEADLINE = Duration.ofSeconds(120);
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1))
            .build();

    /** One instance's slot: its port is kept across restarts, so nginx needs no reload. */
    private static final class Slot {
        final int port;

        @Nullable
        ServerProcess process;

        int generation;

        Slot(int port) {
            this.port = port;
        }
    }

    final Path dir;
    final String loadKey = key("load");
    final String probeKey = key("probe");
    final String canaryKey = key("canary");
    private final Path repositoryRoot;
    private final List<Slot> slots = new ArrayList<>();
    private final List<ServerProcess> processes = new CopyOnWriteArrayList<>();
    private @Nullable PostgresServerProcess postgres;
    private @Nullable RedisServerProcess redis;
    private @Nullable NginxProcess nginx;
    private @Nullable String jdbcUrl;
    private @Nullable Path config;

    private FaultCluster(Path dir, Path repositoryRoot) {
        this.dir = dir;
        this.repositoryRoot = repositoryRoot;
    }

    /** Starts everything; on a failure stops what had started and throws. */
    static FaultCluster start(Path repositoryRoot) throws Exception {
        // named after this JVM, so ./test can sweep what a killed run left behind
        Path dir =
                Files.createTempDirectory("rs-faults-" + ProcessHandle.current().pid() + "-");
        FaultCluster cluster = new FaultCluster(dir, repositoryRoot);
        try {
            cluster.startAll();
            return cluster;
        } catch (Throwable e) {
            cluster.close();
            throw e;
        }
    }

    private void startAll() throws Exception {
        postgres = PostgresServerProcess.start();
        jdbcUrl = postgres.createDatabase("retrysafe");
        redis = RedisServerProcess.start();
        config = dir.resolve("retrysafe.yaml");
        Files.writeString(config, configuration(), StandardCharsets.UTF_8);
        for (int i = 0; i < INSTANCES; i++) {
            slots.add(new Slot(ServerProcess.freePort()));
        }
        // the first instance migrates the database and makes the accounts; the load's gets a
        // plan whose quotas are out of reach, before any instance has looked it up
        launch(0);
        awaitReady(0);
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement("UPDATE accounts SET plan = 'enterprise' WHERE id ="
                        + " (SELECT account_id FROM api_keys WHERE key_hash = ?)")) {
            ps.setString(1, ApiKeys.hash(loadKey));
            if (ps.executeUpdate() != 1) {
                throw new AssertionError("the load account was not bootstrapped");
            }
        }
        for (int i = 1; i < INSTANCES; i++) {
            launch(i);
        }
        for (int i = 1; i < INSTANCES; i++) {
            awaitReady(i);
        }
        nginx = NginxProcess.start(
                repositoryRoot,
                dir,
                ServerProcess.freePort(),
                slots.stream().map(s -> s.port).toList());
    }

    /** The settings of every instance; see docs/configuration.md. */
    private String configuration() {
        String schedule = "[0s, 200ms, 500ms" + ", 1s".repeat(5) + ", 2s".repeat(30) + "]";
        return """
                host: 127.0.0.1
                database:
                  pool_size: 8
                bank:
                  latency: 20ms
                idempotency:
                  lease: %s
                rate_limits:
                  store: redis
                  redis_timeout: %s
                  redis_key_prefix: "rs-faults:"
                  plans:
                    free: 1
                    pro: 10
                    enterprise: 1000
                  policies:
                    - name: %s
                      scope: api_key
                      quota: %d
                      window: %ds
                      burst: %d
                      fail: open
                webhooks:
                  timeout: 2s
                  retry_schedule: %s
                  jitter: 0.2
                  allow_private_targets: ["127.0.0.0/8"]
                  require_https: false
                jobs:
                  workers: 2
                  lease: %s
                  max_attempts: 20
                  report_min_duration: 1s
                shutdown:
                  timeout: 5s
                """.formatted(
                        seconds(LEASE),
                        REDIS_TIMEOUT.toMillis() + "ms",
                        PROBE_POLICY,
                        PROBE_QUOTA,
                        PROBE_WINDOW.toSeconds(),
                        PROBE_BURST,
                        schedule,
                        seconds(LEASE));
    }

    private static String seconds(Duration d) {
        return d.toSeconds() + "s";
    }

    private void launch(int i) throws IOException {
        Slot slot = slots.get(i);
        slot.generation++;
        Map<String, String> settings = new HashMap<>();
        settings.put("PORT", Integer.toString(slot.port));
        settings.put("RETRYSAFE_DATA_DIR", dir.resolve("data-" + i).toString());
        settings.put("RETRYSAFE_DATABASE_URL", requireNonNull(jdbcUrl));
        settings.put("RETRYSAFE_DATABASE_USER", "postgres");
        settings.put("RETRYSAFE_REDIS_URL", requireNonNull(redis).uri());
        settings.put("RETRYSAFE_BOOTSTRAP_API_KEYS", String.join(",", loadKey, probeKey, canaryKey));
        String name = "instance-" + (i + 1) + "." + slot.generation;
        ServerProcess p = ServerProcess.start(
                name,
                ServerProcess.java("--config", requireNonNull(config).toString()),
                ServerProcess.environment(settings),
                dir,
                dir);
        processes.add(p);
        slot.process = p;
        // ./test kills what a killed run left behind
        Files.writeString(dir.resolve(name + ".pid"), Long.toString(p.pid()), StandardCharsets.UTF_8);
    }

    /** Waits until instance {@code i} answers {@code /ready} with 200. */
    void awaitReady(int i) {
        Slot slot = slots.get(i);
        requireNonNull(slot.process).awaitReady(slot.port, START_DEADLINE);
    }

    /** {@code kill -9} of instance {@code i}. */
    void kill(int i) throws InterruptedException {
        requireNonNull(slots.get(i).process).kill9();
    }

    /** Starts instance {@code i} again on its port (after {@link #kill}) without waiting. */
    void restart(int i) throws IOException {
        launch(i);
    }

    /** {@code SIGSTOP} ({@code true}) or {@code SIGCONT} to instance {@code i}. */
    void suspend(int i, boolean stop) throws IOException, InterruptedException {
        requireNonNull(slots.get(i).process).suspend(stop);
    }

    PostgresServerProcess postgres() {
        return requireNonNull(postgres);
    }

    RedisServerProcess redis() {
        return requireNonNull(redis);
    }

    /** nginx's address: where the clients send everything. */
    URI entry() {
        return ServerProcess.base(requireNonNull(nginx).port());
    }

    /** Instance {@code i}'s own address, bypassing nginx. */
    URI instance(int i) {
        return ServerProcess.base(slots.get(i).port);
    }

    /** A connection to the instances' database. */
    Connection connect() throws SQLException {
        return postgres().connect("retrysafe");
    }

    /** Whether every instance answers {@code GET /ready} with 200 now. Threadsafe. */
    boolean allReady() {
        for (int i = 0; i < INSTANCES; i++) {
            if (status(instance(i).resolve("/ready"), null) != 200) {
                return false;
            }
        }
        return true;
    }

    /** The status of a {@code GET}, or -1 when no answer came within 2 s. Threadsafe. */
    static int status(URI uri, @Nullable String apiKey) {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET();
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** The headers of a {@code GET} with {@code apiKey}, or {@code null} when no answer came. Threadsafe. */
    static @Nullable HttpResponse<Void> get(URI uri, String apiKey) {
        try {
            return HTTP.send(
                    HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(2))
                            .header("Authorization", "Bearer " + apiKey)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Lines of every instance's output that report an internal error (a {@code 500}). */
    List<String> internalErrors() {
        List<String> lines = new ArrayList<>();
        for (ServerProcess p : processes) {
            for (String line : (p.stdout() + "\n" + p.stderr()).split("\\R")) {
                if (line.contains("internal error")) {
                    lines.add(line);
                }
            }
        }
        return lines;
    }

    /** Adds every process's output tail to {@code failure}. */
    void attachLogs(Throwable failure) {
        ServerProcess.attachLogs(failure, new ArrayList<>(processes));
        if (nginx != null) {
            failure.addSuppressed(new AssertionError("nginx\n" + nginx.describe(), null));
        }
        if (postgres != null) {
            failure.addSuppressed(new AssertionError("postgres log\n" + postgres.logTail(), null));
        }
    }

    /** Waits, bounded, until every instance is ready: for the end of the run. */
    void awaitAllReady(Duration deadline) {
        await("every instance ready")
                .atMost(deadline)
                .pollInterval(Duration.ofMillis(200))
                .until(this::allReady);
    }

    @Override
    public void close() throws IOException {
        // every step runs even if one before it throws: nothing outlives the test
        try {
            if (nginx != null) {
                nginx.close();
            }
        } finally {
            try {
                for (ServerProcess p : processes) {
                    p.close(); // SIGKILL ends a stopped (paused) process too
                }
            } finally {
                try {
                    if (redis != null) {
                        redis.close();
                    }
                } finally {
                    try {
                        if (postgres != null) {
                            postgres.close();
                        }
                    } finally {
                        try {
                            keepLogs();
                        } finally {
                            ServerProcess.deleteTree(dir);
                        }
                    }
                }
            }
        }
    }

    /** Copies every log of the run to {@code target/fault-suite/logs}, for a look after a failure. */
    private void keepLogs() throws IOException {
        Path target = Files.createDirectories(Path.of("target", "fault-suite", "logs"));
        try (var old = Files.list(target)) {
            for (Path p : old.toList()) {
                Files.deleteIfExists(p);
            }
        }
        try (var files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".out")
                            || f.toString().endsWith(".err")
                            || f.toString().endsWith(".log"))
                    .toList()) {
                Files.copy(p, target.resolve(p.getFileName()));
            }
        }
        if (postgres != null) {
            Files.writeString(target.resolve("postgres-tail.log"), postgres.logTail(), StandardCharsets.UTF_8);
        }
    }

    private static String key(String role) {
        return "acc_" + role + "_" + UUID.randomUUID().toString().replace("-", "");
    }

    private static <T> T requireNonNull(@Nullable T value) {
        if (value == null) {
            throw new IllegalStateException("the cluster is not started");
        }
        return value;
    }
}

package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.Api;
import dev.retrysafe.testkit.PostgresTestDatabase;
import dev.retrysafe.testkit.RedisServerProcess;
import dev.retrysafe.testkit.RepositoryRoot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./run cluster} (scripts/cluster.sh) as a user runs it: two instances of the packaged
 * server on PostgreSQL and Redis behind nginx on one port; requests through nginx reach both;
 * an instance killed with {@code kill -9} costs no request; {@code stop} ends every process.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClusterScriptTest {

    private static final Duration COMMAND_DEADLINE = Duration.ofSeconds(200);

    @TempDir
    Path temp;

    @Test
    void helpPrintsTheCommandsAndCreatesNothing() throws Exception {
        // once, ./run cluster --help made ./cluster in the current folder
        Path cwd = Files.createDirectories(temp.resolve("cwd"));
        Path logs = Files.createDirectories(temp.resolve("help-logs"));
        for (String help : List.of("--help", "-h", "help")) {
            try (ServerProcess p = ServerProcess.start(
                    "cluster-" + help,
                    List.of(RepositoryRoot.find().resolve("run").toString(), "cluster", help),
                    ServerProcess.environment(Map.of()),
                    cwd,
                    logs)) {
                assertThat(p.waitFor(Duration.ofSeconds(30))).as(p.describe()).isZero();
                assertThat(p.stdout()).contains("start", "status", "stop", "--instances", "--dir");
            }
        }
        try (var left = Files.list(cwd)) {
            assertThat(left.toList())
                    .as("what ./run cluster --help left in its folder")
                    .isEmpty();
        }
    }

    @Test
    void startsInstancesBehindNginxSurvivesAKillAndStopsEverything() throws Exception {
        String apiKey = "acc_cluster_" + UUID.randomUUID().toString().replace("-", "");
        int port = ServerProcess.freePort();
        List<Integer> instancePorts = List.of(ServerProcess.freePort(), ServerProcess.freePort());
        Path dir = temp.resolve("cluster");
        List<ServerProcess> commands = new ArrayList<>();
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                RedisServerProcess redis = RedisServerProcess.start()) {
            Map<String, String> env = new HashMap<>();
            env.put("RETRYSAFE_DATABASE_URL", db.jdbcUrl());
            env.put("RETRYSAFE_DATABASE_USER", db.user());
            env.put("RETRYSAFE_REDIS_URL", redis.uri());
            env.put("RETRYSAFE_BOOTSTRAP_API_KEYS", apiKey);
            env.put("RETRYSAFE_BANK_LATENCY_MS", "0");
            try {
                // when: two instances start behind nginx
                ServerProcess start = cluster(
                        commands,
                        env,
                        "start",
                        "--instances",
                        "2",
                        "--port",
                        Integer.toString(port),
                        "--instance-ports",
                        instancePorts.get(0) + "," + instancePorts.get(1),
                        "--dir",
                        dir.toString());
                assertThat(start.waitFor(COMMAND_DEADLINE))
                        .as("start\n%s", start.describe())
                        .isZero();
                ServerProcess status = cluster(commands, env, "status", "--dir", dir.toString());
                assertThat(status.waitFor(COMMAND_DEADLINE))
                        .as("status\n%s", status.describe())
                        .isZero();
                assertThat(status.stdout())
                        .contains("instance 1: pid", "instance 2: pid", "nginx: pid")
                        .doesNotContain("not ready");

                // then: payments through nginx reach both instances
                Api api = new Api(ServerProcess.base(port), apiKey);
                for (int i = 0; i < 6; i++) {
                    Api.Answer paid =
                            api.post("/v1/payments", "{\"amount\": 100, \"currency\": \"eur\"}", "cluster-" + i);
                    assertThat(paid.status()).as(paid.raw().body()).isEqualTo(201);
                }
                assertThat(upstreams(dir))
                        .as("instances that served requests (nginx access log)")
                        .containsExactlyInAnyOrder(
                                "127.0.0.1:" + instancePorts.get(0), "127.0.0.1:" + instancePorts.get(1));

                // when: one instance dies, then: nginx sends every request to the other
                long first = pid(dir, 1);
                // SIGKILL is delivered asynchronously: until the process is gone its listening
                // socket still completes handshakes, and a POST written to such a connection was
                // "sent", so nginx rightly answers 502 instead of repeating it. The claim here is
                // about a dead instance, so wait until it is one.
                ProcessHandle victim = ProcessHandle.of(first).orElseThrow();
                victim.destroyForcibly();
                victim.onExit().get(COMMAND_DEADLINE.toSeconds(), TimeUnit.SECONDS);
                for (int i = 0; i < 6; i++) {
                    Api.Answer paid =
                            api.post("/v1/payments", "{\"amount\": 100, \"currency\": \"eur\"}", "after-" + i);
                    assertThat(paid.status())
                            .as("with instance 1 dead: %s", paid.raw().body())
                            .isEqualTo(201);
                }

                // when: stopped, then: no process is left
                long second = pid(dir, 2);
                long nginx = Long.parseLong(Files.readString(dir.resolve("nginx.pid"), StandardCharsets.UTF_8)
                        .strip());
                ServerProcess stop = cluster(commands, env, "stop", "--dir", dir.toString());
                assertThat(stop.waitFor(COMMAND_DEADLINE))
                        .as("stop\n%s", stop.describe())
                        .isZero();
                for (long pid : List.of(first, second, nginx)) {
                    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive))
                            .as("process %d", pid)
                            .isNotEqualTo(java.util.Optional.of(true));
                }
                assertThat(FaultCluster.status(ServerProcess.base(port).resolve("/ready"), null))
                        .isEqualTo(-1);
            } catch (Throwable failure) {
                ServerProcess.attachLogs(failure, new ArrayList<>(commands));
                throw failure;
            } finally {
                // whatever happened: nothing outlives the test
                ServerProcess stop = cluster(commands, env, "stop", "--dir", dir.toString());
                stop.waitFor(COMMAND_DEADLINE);
                for (ServerProcess p : commands) {
                    p.close();
                }
            }
        }
    }

    private static ServerProcess cluster(List<ServerProcess> commands, Map<String, String> env, String... args)
            throws Exception {
        List<String> command =
                new ArrayList<>(List.of(RepositoryRoot.find().resolve("run").toString(), "cluster"));
        command.addAll(List.of(args));
        Path logs = Files.createDirectories(Path.of("target", "cluster-script"));
        ServerProcess p = ServerProcess.start(
                "cluster-" + args[0] + "-" + commands.size(), command, ServerProcess.environment(env), logs, logs);
        commands.add(p);
        return p;
    }

    private static long pid(Path dir, int instance) throws Exception {
        return Long.parseLong(Files.readString(dir.resolve("instance-" + instance + ".pid"), StandardCharsets.UTF_8)
                .strip());
    }

    /** The upstream addresses in nginx's access log (the template's log format: fifth field). */
    private static Set<String> upstreams(Path dir) throws Exception {
        Set<String> found = new HashSet<>();
        for (String line : Files.readAllLines(dir.resolve("nginx-access.log"), StandardCharsets.UTF_8)) {
            String[] fields = line.split(" ");
            if (fields.length > 4 && fields[2].equals("/v1/payments")) {
                found.add(fields[4]);
            }
        }
        return found;
    }
}

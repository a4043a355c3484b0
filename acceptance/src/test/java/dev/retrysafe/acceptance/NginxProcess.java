package dev.retrysafe.acceptance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * nginx (the Debian package) in front of server instances on loopback, configured from the same
 * template as {@code scripts/cluster.sh} ({@code scripts/cluster/nginx.conf.template}), so the
 * tests exercise the configuration users run. It runs in the foreground as a child of the test
 * JVM, with its configuration, logs and pid file in {@code dir}. Not threadsafe.
 */
final class NginxProcess implements AutoCloseable {

    private static final Duration START_DEADLINE = Duration.ofSeconds(30);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(10);

    private final ServerProcess process;
    private final int port;

    private NginxProcess(ServerProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts nginx on {@code 127.0.0.1:port} in front of {@code upstreamPorts}, waiting until
     * {@code GET /ready} through it answers 200 (so at least one instance must be ready).
     */
    static NginxProcess start(Path repositoryRoot, Path dir, int port, List<Integer> upstreamPorts) throws IOException {
        String servers = upstreamPorts.stream()
                .map(p -> "server 127.0.0.1:" + p + " max_fails=1 fail_timeout=2s;")
                .collect(Collectors.joining("\n        "));
        String template =
                Files.readString(repositoryRoot.resolve("scripts/cluster/nginx.conf.template"), StandardCharsets.UTF_8);
        Path conf = dir.resolve("nginx.conf");
        Files.writeString(
                conf,
                template.replace("@DIR@", dir.toString())
                        .replace("@LISTEN@", "127.0.0.1:" + port)
                        .replace("@SERVERS@", servers),
                StandardCharsets.UTF_8);
        Files.createDirectories(dir.resolve("nginx-tmp"));
        // as root, nginx's workers run as nobody and must reach the folder
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        ServerProcess nginx = ServerProcess.start(
                "nginx",
                List.of(binary(), "-p", dir.toString(), "-c", conf.toString(), "-g", "daemon off;"),
                ServerProcess.environment(Map.of()),
                dir,
                dir);
        try {
            nginx.awaitReady(port, START_DEADLINE);
        } catch (RuntimeException | Error e) {
            nginx.terminateFamily(STOP_DEADLINE);
            throw new AssertionError(
                    "nginx did not answer on port " + port + "\n" + readQuietly(dir.resolve("nginx-error.log")), e);
        }
        return new NginxProcess(nginx, port);
    }

    int port() {
        return port;
    }

    /** The nginx output and error log, for failure messages. */
    String describe() {
        return process.describe();
    }

    /** Stops nginx and its workers (a regression: a forcible kill left a respawned worker behind). */
    @Override
    public void close() {
        process.terminateFamily(STOP_DEADLINE);
    }

    private static String binary() {
        for (String candidate : List.of("/usr/sbin/nginx", "/usr/bin/nginx")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        throw new IllegalStateException("nginx is needed (the Debian package nginx; ./test installs it)");
    }

    private static String readQuietly(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(no " + file + ")";
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }
}

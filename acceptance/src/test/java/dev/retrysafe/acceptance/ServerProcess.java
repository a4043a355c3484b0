package dev.retrysafe.acceptance;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * An operating-system process for acceptance tests: a Retrysafe server started with the JDK and
 * class path of the test JVM ({@link #java}), or any command such as the repository's
 * {@code ./run} ({@link #start}). Its output goes to files, whose tails {@link #describe()} shows
 * when a test fails. {@link #close()} kills the process if it still runs, so a test that closes
 * it in {@code finally} never leaves one behind. Not threadsafe.
 */
final class ServerProcess implements AutoCloseable {

    /** The main class of the server. */
    static final String MAIN_CLASS = "dev.retrysafe.server.cli.Main";
    /** What {@link Process#exitValue()} reports for a process ended by SIGKILL: 128 + 9. */
    static final int EXIT_SIGKILL = 128 + 9;
    /** What {@link Process#exitValue()} reports for a JVM that shut down on SIGTERM: 128 + 15. */
    static final int EXIT_SIGTERM = 128 + 15;

    private static final HttpClient PROBE = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(1))
            .version(HttpClient.Version.HTTP_1_1)
            .build();

    private final String name;
    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private ServerProcess(String name, Process process, Path stdout, Path stderr) {
        this.name = name;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * The command that runs the server's {@link #MAIN_CLASS} with {@code args} on the JDK and the
     * class path of this test JVM.
     */
    static List<String> java(String... args) {
        return javaMain(MAIN_CLASS, args);
    }

    /** The command that runs {@code mainClass} with {@code args} on the JDK and class path of this JVM. */
    static List<String> javaMain(String mainClass, String... args) {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(
                List.of(java, "-Xmx384m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * The environment of this JVM without {@code PORT} and any {@code RETRYSAFE_*} variable, plus
     * {@code extra}: a process sees only the settings its test gives it.
     */
    static Map<String, String> environment(Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.equals("PORT") || k.startsWith("RETRYSAFE_"));
        env.putAll(extra);
        return env;
    }

    /**
     * Starts {@code command} in {@code workDir} with exactly {@code env}, its output going to
     * {@code <logDir>/<name>.out} and {@code .err}.
     */
    static ServerProcess start(String name, List<String> command, Map<String, String> env, Path workDir, Path logDir)
            throws IOException {
        Path out = logDir.resolve(name + ".out");
        Path err = logDir.resolve(name + ".err");
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        return new ServerProcess(name, pb.start(), out, err);
    }

    /** A free TCP port on the loopback interface (free when this returns; a race is unlikely). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    static URI base(int port) {
        return URI.create("http://127.0.0.1:" + port);
    }

    /**
     * Waits until {@code GET /ready} on {@code port} answers 200, failing at once when the process
     * exits and after {@code deadline} otherwise.
     */
    void awaitReady(int port, Duration deadline) {
        URI ready = base(port).resolve("/ready");
        await("process " + name + " answering 200 on " + ready)
                .atMost(deadline)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new AssertionError("process " + name + " exited with " + process.exitValue()
                                + " before it was ready\n" + describe());
                    }
                    try {
                        HttpResponse<Void> r = PROBE.send(
                                HttpRequest.newBuilder(ready)
                                        .timeout(Duration.ofSeconds(2))
                                        .GET()
                                        .build(),
                                HttpResponse.BodyHandlers.discarding());
                        return r.statusCode() == 200;
                    } catch (IOException e) {
                        return false; // not listening yet
                    }
                });
    }

    /**
     * Ends the process with SIGKILL ({@code kill -9}: {@link Process#destroyForcibly()} sends it on
     * Linux) and waits for it; fails unless it died of that very signal.
     */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        int code = waitFor(Duration.ofSeconds(10));
        if (code != EXIT_SIGKILL) {
            throw new AssertionError("process " + name + " was sent SIGKILL but exited with " + code + " (expected "
                    + EXIT_SIGKILL + ")\n" + describe());
        }
    }

    /** The operating-system process id. */
    long pid() {
        return process.pid();
    }

    /** Whether the process still runs. */
    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Sends {@code SIGSTOP} ({@code stop}) or {@code SIGCONT}: a stopped process keeps its sockets
     * and leases but answers nothing, like a long GC pause or a frozen virtual machine.
     */
    void suspend(boolean stop) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", stop ? "-STOP" : "-CONT", Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill " + (stop ? "-STOP " : "-CONT ") + process.pid() + " failed for " + name);
        }
    }

    /** Sends SIGTERM ({@link Process#destroy()} on Linux) and returns the exit code, or -1 after {@code timeout}. */
    int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        return waitFor(timeout);
    }

    /** The exit code, or -1 if it is still running after {@code timeout}. */
    int waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    /** Everything the process wrote to its standard output so far. */
    String stdout() {
        return read(stdout);
    }

    /** Everything the process wrote to its standard error so far. */
    String stderr() {
        return read(stderr);
    }

    /** The process's name, state and the last lines of its output, for failure messages. */
    String describe() {
        return "---- " + name + " (pid " + process.pid() + ", "
                + (process.isAlive() ? "running" : "exit " + process.exitValue()) + ") stdout tail:\n"
                + tail(stdout(), 40) + "---- " + name + " stderr tail:\n" + tail(stderr(), 60) + "----";
    }

    /**
     * Ends a process that has children of its own (nginx and its workers) without orphaning any:
     * SIGTERM to the process, which ends its children itself, then SIGKILL to whatever of the
     * family is left after {@code timeout}. Killing the children first would not do: nginx starts
     * a new worker for each that dies, and that one outlives its master.
     */
    void terminateFamily(Duration timeout) {
        List<ProcessHandle> children = process.descendants().toList();
        try {
            terminate(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            children.forEach(ProcessHandle::destroyForcibly);
            close();
        }
    }

    /** Kills the process (with its children) if it still runs and waits for it, bounded. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            boolean ended;
            try {
                ended = process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ended = !process.isAlive();
            }
            if (!ended) {
                throw new AssertionError("process " + name + " (pid " + process.pid() + ") did not die of SIGKILL");
            }
        }
    }

    /**
     * Adds the output tails of {@code processes} (nulls skipped) to {@code failure} as suppressed
     * errors, so the test report shows what the servers said.
     */
    static void attachLogs(Throwable failure, List<@Nullable ServerProcess> processes) {
        for (ServerProcess p : processes) {
            if (p != null) {
                failure.addSuppressed(new AssertionError("server output\n" + p.describe(), null));
            }
        }
    }

    /** Deletes {@code dir} and everything in it; quiet when it does not exist. */
    static void deleteTree(@Nullable Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    private static String tail(String text, int lines) {
        String[] all = text.split("\\R", -1);
        StringBuilder sb = new StringBuilder();
        for (int i = Math.max(0, all.length - lines); i < all.length; i++) {
            if (!all[i].isEmpty() || i < all.length - 1) {
                sb.append(all[i]).append('\n');
            }
        }
        return sb.toString();
    }
}

package dev.retrysafe.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A private {@code redis-server} on a free loopback port, for tests that kill and restart Redis
 * (outages, failovers) without disturbing the shared one. Nothing is persisted: a restart starts
 * empty, like a crashed cache. The binary is {@code redis-server} on the {@code PATH}, or
 * {@code RETRYSAFE_TEST_REDIS_SERVER}. Every wait has a deadline; a server that cannot be
 * started fails the test loudly. {@link #close()} kills it (a JVM shutdown hook does too, should
 * a test run end abruptly). This class is threadsafe.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final Duration START_DEADLINE = Duration.ofSeconds(10);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(10);
    private static final int PORT_ATTEMPTS = 5;

    private final int port;
    private final Path log;
    /** Where the server runs ({@code --dir}), or null for the JVM's working directory. */
    private final @Nullable Path dir;

    private final List<String> extraArguments;
    private final Thread shutdownHook;
    private @Nullable Process process;

    private RedisServerProcess(int port, Path log, @Nullable Path dir, List<String> extraArguments) {
        this.port = port;
        this.log = log;
        this.dir = dir;
        this.extraArguments = List.copyOf(extraArguments);
        this.shutdownHook = new Thread(this::kill, "redis-server-" + port + "-killer");
    }

    /** Starts a server on a free port and waits (bounded) until it answers {@code PING}. */
    public static RedisServerProcess start() {
        return start(null, List::of);
    }

    /**
     * Starts a server on a free port, run in {@code dir} (which then holds its log; null for a
     * temporary log file and the JVM's working directory) with {@code extraArguments} after the
     * usual ones, asked for again on each attempt (they may name free ports of their own).
     */
    static RedisServerProcess start(@Nullable Path dir, Supplier<List<String>> extraArguments) {
        IllegalStateException last = new IllegalStateException("no attempt to start redis-server");
        // the free port found may be taken by someone else before the server binds it
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            RedisServerProcess server = create(LocalServers.freePort(), dir, extraArguments.get());
            try {
                server.restart();
                Runtime.getRuntime().addShutdownHook(server.shutdownHook);
                return server;
            } catch (IllegalStateException e) {
                server.kill();
                server.deleteLog();
                last = e;
            }
        }
        throw last;
    }

    private static RedisServerProcess create(int port, @Nullable Path dir, List<String> extraArguments) {
        try {
            Path log = dir == null
                    ? Files.createTempFile("redis-server-" + port + "-", ".log")
                    : Files.createDirectories(dir).resolve("redis-" + port + ".log");
            return new RedisServerProcess(port, log, dir, extraArguments);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a log file for redis-server", e);
        }
    }

    /** The port it listens on (the same across restarts). */
    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Whether the server answers {@code PING} now. */
    public boolean answersPing() {
        try {
            return "PONG".equals(Resp.call(port, Duration.ofMillis(500), "PING"));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Stops the server without closing its connections ({@code SIGSTOP}): it accepts nothing and
     * answers nothing, like a hung host or a partition, so clients see timeouts, not refusals.
     */
    public synchronized void freeze() {
        signal("-STOP");
    }

    /** Lets a frozen server go on ({@code SIGCONT}). */
    public synchronized void thaw() {
        signal("-CONT");
    }

    private void signal(String signal) {
        Process running = process;
        if (running == null) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(running.pid()))
                    .inheritIO()
                    .start();
            if (!kill.waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " failed for redis-server on port " + port);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill " + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling redis-server on port " + port, e);
        }
    }

    /** Kills the server at once, as a crash would ({@code SIGKILL}), and waits until it is gone. */
    public synchronized void kill() {
        Process running = process;
        process = null;
        if (running == null) {
            return;
        }
        running.destroyForcibly();
        try {
            if (!running.waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "redis-server on port " + port + " did not die within " + STOP_DEADLINE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing redis-server on port " + port, e);
        }
    }

    /**
     * Starts the server again on the same port (empty: nothing is persisted) and waits until it
     * answers {@code PING}. Does nothing to a server that is running.
     */
    public synchronized void restart() {
        if (process != null && process.isAlive()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of(
                binary(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--protected-mode",
                "yes"));
        if (dir != null) {
            command.addAll(List.of("--dir", dir.toString()));
        }
        command.addAll(extraArguments);
        Process started;
        try {
            started = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot run " + command.getFirst() + " (install the Debian package"
                            + " redis-server, or set RETRYSAFE_TEST_REDIS_SERVER): " + e.getMessage(),
                    e);
        }
        process = started;
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (!answersPing()) {
            if (!started.isAlive()) {
                process = null;
                throw new IllegalStateException(
                        "redis-server on port " + port + " exited with " + started.exitValue() + ": " + logTail());
            }
            if (System.nanoTime() - deadline > 0) {
                kill();
                throw new IllegalStateException("redis-server on port " + port + " did not answer PING within "
                        + START_DEADLINE + ": " + logTail());
            }
            pause();
        }
    }

    /** Kills the server and deletes its log. */
    @Override
    public void close() {
        kill();
        deleteLog();
        LocalServers.removeShutdownHook(shutdownHook);
    }

    private void deleteLog() {
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            // a leftover log file in the temp directory harms nothing
        }
    }

    /** The last lines of its log, for error messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10); // polling interval of a bounded wait, not a wait for a state
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", e);
        }
    }

    private static String binary() {
        String configured = System.getenv("RETRYSAFE_TEST_REDIS_SERVER");
        return configured == null || configured.isBlank() ? "redis-server" : configured;
    }
}

package dev.retrysafe.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private PostgreSQL server (its own cluster, made with {@code initdb}) on a free loopback port,
 * for tests that stop, crash and restart the database under a running application without
 * disturbing the machine's shared PostgreSQL that other tests use at the same time. Its data
 * survives {@link #stop} and {@link #restart}, like a real database's; {@link #close()} stops it
 * and deletes the cluster (a JVM shutdown hook does too, should a test run end abruptly).
 *
 * <p>The binaries are those of {@code RETRYSAFE_TEST_PG_BIN}, else the newest
 * {@code /usr/lib/postgresql/<version>/bin} (the Debian package {@code postgresql}). PostgreSQL
 * refuses to run as root, so as root every command runs as the user {@code postgres} (through
 * {@code runuser}). Every wait has a deadline; a server that cannot be had fails loudly. The
 * cluster's folder is named after this JVM's process id, so {@code ./test} can stop the servers of
 * killed runs. Threadsafe.
 */
public final class PostgresServerProcess implements AutoCloseable {

    /** What the folder of every cluster made here starts with, followed by the JVM's pid and a dash. */
    public static final String DIR_PREFIX = "rs-pg-";
    /** The user that owns the cluster and runs the server when the tests run as root. */
    private static final String OS_USER = "postgres";

    private static final Duration COMMAND_DEADLINE = Duration.ofSeconds(90);

    private final Path dir;
    private final Path data;
    private final Path log;
    private final Path bin;
    private final int port;
    private final Thread shutdownHook;

    private PostgresServerProcess(Path dir, Path bin, int port) {
        this.dir = dir;
        this.data = dir.resolve("data");
        this.log = dir.resolve("postgres.log");
        this.bin = bin;
        this.port = port;
        this.shutdownHook = new Thread(this::stopQuietly, "postgres-" + port + "-stopper");
    }

    /**
     * Makes a new cluster (user {@code postgres}, trust authentication on loopback only) and starts
     * it on a free port, waiting until it accepts connections.
     */
    public static PostgresServerProcess start() {
        Path bin = binaries();
        Path dir;
        try {
            dir = Files.createTempDirectory(DIR_PREFIX + ProcessHandle.current().pid() + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a folder for a PostgreSQL cluster", e);
        }
        PostgresServerProcess server = new PostgresServerProcess(dir, bin, LocalServers.freePort());
        try {
            server.init();
            Runtime.getRuntime().addShutdownHook(server.shutdownHook);
            server.restart();
            return server;
        } catch (RuntimeException e) {
            server.stopQuietly();
            server.deleteFolder();
            throw e;
        }
    }

    /** The port it listens on (the same across restarts). */
    public int port() {
        return port;
    }

    /** The JDBC URL of database {@code name} on this server. */
    public String jdbcUrl(String name) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name;
    }

    /** The user to connect as (trust authentication, no password). */
    public String user() {
        return OS_USER;
    }

    /** Creates an empty database named {@code name} and returns its JDBC URL. */
    public String createDatabase(String name) {
        if (!name.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("not a plain database name: " + name);
        }
        try (Connection c = connect("postgres");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot create database " + name + " on port " + port + ": " + e.getMessage(), e);
        }
        return jdbcUrl(name);
    }

    /** A new connection to database {@code name}; the caller closes it. */
    public Connection connect(String name) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", OS_USER);
        p.setProperty("connectTimeout", "5");
        return DriverManager.getConnection(jdbcUrl(name), p);
    }

    /**
     * Stops the server. {@code crash} stops it as a power cut or {@code kill -9} of the postmaster
     * would ({@code pg_ctl stop -m immediate}: no checkpoint, recovery on the next start);
     * otherwise as a service restart does ({@code -m fast}: sessions are ended, their transactions
     * rolled back). Either way every client connection breaks. Waits until it is down.
     */
    public synchronized void stop(boolean crash) {
        run(
                "pg_ctl",
                "-D",
                data.toString(),
                "-m",
                crash ? "immediate" : "fast",
                "-w",
                "-t",
                Long.toString(COMMAND_DEADLINE.toSeconds()),
                "stop");
    }

    /** Starts the server again on the same port and data; waits until it accepts connections. */
    public synchronized void restart() {
        if (isRunning()) {
            return;
        }
        run(
                "pg_ctl",
                "-D",
                data.toString(),
                "-l",
                log.toString(),
                "-w",
                "-t",
                Long.toString(COMMAND_DEADLINE.toSeconds()),
                "start");
    }

    /** Whether the server's postmaster runs ({@code pg_ctl status}). */
    public boolean isRunning() {
        return exec(command("pg_ctl", "-D", data.toString(), "status")).exitCode() == 0;
    }

    /** The last lines of the server's log, for failure messages. */
    public String logTail() {
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Stops the server (crash-fast) and deletes its cluster. */
    @Override
    public void close() {
        stopQuietly();
        deleteFolder();
        LocalServers.removeShutdownHook(shutdownHook);
    }

    private void init() {
        if (isRoot()) {
            chown(dir);
        }
        run(
                "initdb",
                "-D",
                data.toString(),
                "-U",
                OS_USER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions");
        // a test database: small, loopback only, no fsync (the tests crash processes, not the
        // machine: the operating system keeps what was written). Commits stay synchronous: with
        // synchronous_commit off an immediate stop loses answered commits, which is no test of
        // the application.
        String settings = String.join(
                "\n",
                "",
                "listen_addresses = '127.0.0.1'",
                "port = " + port,
                "unix_socket_directories = '" + dir + "'",
                "max_connections = 200",
                "shared_buffers = 32MB",
                "fsync = off",
                "log_min_messages = warning",
                "");
        try {
            Files.writeString(
                    data.resolve("postgresql.conf"), settings, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot configure the cluster in " + data, e);
        }
    }

    private void stopQuietly() {
        if (Files.exists(data.resolve("postmaster.pid"))) {
            exec(command("pg_ctl", "-D", data.toString(), "-m", "immediate", "-w", "-t", "30", "stop"));
        }
    }

    private void deleteFolder() {
        LocalServers.deleteTree(dir);
    }

    private record Result(int exitCode, String output) {}

    private void run(String tool, String... args) {
        List<String> command = command(tool, args);
        Result r = exec(command);
        if (r.exitCode() != 0) {
            throw new IllegalStateException(
                    String.join(" ", command) + " failed with " + r.exitCode() + ":\n" + r.output() + "\n" + logTail());
        }
    }

    private List<String> command(String tool, String... args) {
        List<String> command = new ArrayList<>();
        if (isRoot()) {
            command.addAll(List.of("runuser", "-u", OS_USER, "--"));
        }
        command.add(bin.resolve(tool).toString());
        command.addAll(List.of(args));
        return command;
    }

    private Result exec(List<String> command) {
        Path output = null;
        try {
            output = Files.createTempFile(DIR_PREFIX + "cmd-", ".log");
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .redirectInput(
                            ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .start();
            if (!p.waitFor(COMMAND_DEADLINE.toMillis() + 10_000, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        String.join(" ", command) + " did not finish within " + COMMAND_DEADLINE);
            }
            return new Result(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException e) {
                    // a leftover temp file harms nothing
                }
            }
        }
    }

    private static void chown(Path path) {
        try {
            UserPrincipal owner =
                    path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(OS_USER);
            Files.setOwner(path, owner);
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw new IllegalStateException(
                    "running as root, the cluster must belong to the user " + OS_USER
                            + " (from the Debian package postgresql), which failed: " + e,
                    e);
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static Path binaries() {
        String configured = System.getenv("RETRYSAFE_TEST_PG_BIN");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        Path debian = Path.of("/usr/lib/postgresql");
        try (Stream<Path> versions = Files.list(debian)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max(Comparator.comparingInt(PostgresServerProcess::majorVersion))
                    .orElseThrow(() -> new IllegalStateException("no initdb under " + debian));
        } catch (IOException | IllegalStateException e) {
            throw new IllegalStateException(
                    "PostgreSQL's server binaries are needed (install the Debian package"
                            + " postgresql, or set RETRYSAFE_TEST_PG_BIN to the folder of initdb and pg_ctl): "
                            + e.getMessage(),
                    e);
        }
    }

    private static int majorVersion(Path bin) {
        String v = bin.getParent().getFileName().toString().toLowerCase(Locale.ROOT);
        return v.matches("\\d+") ? Integer.parseInt(v) : 0;
    }
}

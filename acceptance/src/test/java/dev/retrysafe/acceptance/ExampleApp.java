package dev.retrysafe.acceptance;

import dev.retrysafe.testkit.PostgresTestDatabase;
import dev.retrysafe.testkit.RepositoryRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The packaged example application ({@code examples/spring-boot-payments}, a Spring Boot fat jar)
 * started as a process on a random port, with the same environment variables as the Retrysafe
 * server, on H2 or on PostgreSQL. The tests read its database directly: PostgreSQL through
 * {@link PostgresTestDatabase}, H2 through the TCP server this JVM serves it from. Not threadsafe.
 */
final class ExampleApp implements AutoCloseable {

    /** The example's jar, relative to the repository's root. */
    static final String JAR = "examples/spring-boot-payments/target/spring-boot-payments.jar";
    /** A Spring Boot start on a loaded machine of two cores takes tens of seconds. */
    static final Duration START_DEADLINE = Duration.ofSeconds(150);

    /** Where the example keeps its data: an H2 file in a folder, or a PostgreSQL database. */
    sealed interface Store permits H2, Postgres {
        /** The environment variables that point the application at this store. */
        Map<String, String> environment();

        /** A connection for the test's own queries. */
        Connection connect() throws SQLException;
    }

    /**
     * An H2 database in PostgreSQL mode, served to the application over TCP from this test JVM
     * ({@code RETRYSAFE_DATABASE_URL=jdbc:h2:tcp:...}), so that the test can read it while the
     * application runs and after it was killed. (The application's own default, an embedded file,
     * is what {@code RunExampleTest} starts.)
     */
    record H2(org.h2.tools.Server server, String url) implements Store {

        /** A TCP server on a random loopback port, keeping its files in {@code dir}. */
        static H2 serve(Path dir) {
            try {
                Files.createDirectories(dir);
                org.h2.tools.Server server = org.h2.tools.Server.createTcpServer(
                                "-tcpPort", "0", "-ifNotExists", "-baseDir", dir.toString())
                        .start();
                return new H2(
                        server, "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/example-payments;MODE=PostgreSQL");
            } catch (SQLException | IOException e) {
                throw new IllegalStateException("cannot start an H2 TCP server in " + dir, e);
            }
        }

        @Override
        public Map<String, String> environment() {
            return Map.of("RETRYSAFE_DATABASE_URL", url);
        }

        @Override
        public Connection connect() throws SQLException {
            return DriverManager.getConnection(url, "", "");
        }

        @Override
        public String toString() {
            return "H2";
        }
    }

    /** A PostgreSQL database of the test's own, by {@code RETRYSAFE_DATABASE_URL} and {@code _USER}. */
    record Postgres(PostgresTestDatabase db) implements Store {
        @Override
        public Map<String, String> environment() {
            return Map.of("RETRYSAFE_DATABASE_URL", db.jdbcUrl(), "RETRYSAFE_DATABASE_USER", db.user());
        }

        @Override
        public Connection connect() throws SQLException {
            return db.connect();
        }

        @Override
        public String toString() {
            return "PostgreSQL";
        }
    }

    final ServerProcess process;
    final int port;
    final URI base;

    private ExampleApp(ServerProcess process, int port) {
        this.process = process;
        this.port = port;
        this.base = ServerProcess.base(port);
    }

    /**
     * Starts the example as {@code name} on {@code store} with the API keys {@code apiKeys}, the bank's
     * {@code bankLatency}, the extra environment {@code env} and the Spring arguments {@code args};
     * returns once {@code GET /ready} answers 200.
     */
    static ExampleApp start(
            String name,
            Store store,
            Path dir,
            List<String> apiKeys,
            Duration bankLatency,
            Map<String, String> env,
            String... args)
            throws IOException {
        int port = ServerProcess.freePort();
        Map<String, String> settings = new HashMap<>(store.environment());
        settings.put("PORT", Integer.toString(port));
        settings.put("RETRYSAFE_BOOTSTRAP_API_KEYS", String.join(",", apiKeys));
        settings.put("RETRYSAFE_BANK_LATENCY_MS", Long.toString(bankLatency.toMillis()));
        settings.putAll(env);
        List<String> command = new ArrayList<>(
                List.of(java(), "-Xmx320m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar().toString()));
        command.add("--server.address=127.0.0.1");
        command.addAll(List.of(args));
        ServerProcess process = ServerProcess.start(name, command, ServerProcess.environment(settings), dir, dir);
        ExampleApp app = new ExampleApp(process, port);
        try {
            process.awaitReady(port, START_DEADLINE);
        } catch (RuntimeException | Error e) {
            process.close();
            throw e;
        }
        return app;
    }

    /**
     * The packaged jar, failing when it is missing or older than the example's compiled classes
     * (a stale jar would test yesterday's code): the acceptance module runs after the reactor
     * packaged the example, as {@code ./mvnw install} and {@code ./test} do.
     */
    static Path jar() {
        Path root = RepositoryRoot.find();
        Path jar = root.resolve(JAR);
        String hint = " (package it first: ./mvnw -pl examples/spring-boot-payments -am package -DskipTests)";
        if (!Files.isRegularFile(jar)) {
            throw new AssertionError("the example's jar " + jar + " does not exist" + hint);
        }
        Path classes = root.resolve("examples/spring-boot-payments/target/classes");
        try (Stream<Path> files = Files.walk(classes)) {
            FileTime built = Files.getLastModifiedTime(jar);
            List<Path> newer = files.filter(Files::isRegularFile)
                    .filter(p -> lastModified(p).compareTo(built) > 0)
                    .limit(3)
                    .toList();
            if (!newer.isEmpty()) {
                throw new AssertionError("the example's jar is older than its classes " + newer + hint);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return jar;
    }

    private static FileTime lastModified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String java() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** Adds this application's output to {@code failure}. */
    static void attachLogs(Throwable failure, @Nullable ExampleApp... apps) {
        List<@Nullable ServerProcess> processes = new ArrayList<>();
        for (ExampleApp app : apps) {
            processes.add(app == null ? null : app.process);
        }
        ServerProcess.attachLogs(failure, processes);
    }

    @Override
    public void close() {
        process.close();
    }
}

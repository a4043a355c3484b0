package dev.retrysafe.server;

import dev.retrysafe.server.config.DatabaseConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.server.db.ConnectionCheck;
import dev.retrysafe.server.db.DatabaseUnavailableException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Optional;
import org.h2.tools.Server;

/**
 * The embedded H2 database is a file that only one process may open. A running Retrysafe server
 * therefore opens a TCP server for it on the loopback interface and writes that port to
 * {@value #PORT_FILE} in the data folder; one-off commands ({@code create-account}) connect
 * through it while the server runs, and open the file directly otherwise.
 *
 * <p>We run this server ourselves rather than using H2's {@code AUTO_SERVER} mode because that
 * mode refuses {@code DB_CLOSE_ON_EXIT=FALSE}, and without it H2 closes the database from its
 * own shutdown hook while our graceful shutdown is still finishing in-flight requests.
 */
final class EmbeddedH2 {

    static final String PORT_FILE = "h2-server.port";
    /** The file H2 keeps the embedded database in ({@link DatabaseConfig#jdbcUrl} names it "retrysafe"). */
    static final String DATABASE_FILE = "retrysafe.mv.db";

    private static final String BIND_ADDRESS = "h2.bindAddress";
    private static final int PROBE_TIMEOUT_MILLIS = 500;
    // Flyway holds one connection for its lock while it migrates with another
    private static final int ONE_OFF_POOL_SIZE = 2;

    private EmbeddedH2() {}

    /**
     * Makes H2 bind its TCP server to the loopback address. H2 reads the property once, so this
     * must run before the first H2 use of the process; an explicit setting wins.
     */
    static void loopbackOnly() {
        if (System.getProperty(BIND_ADDRESS) == null) {
            System.setProperty(BIND_ADDRESS, "127.0.0.1");
        }
    }

    /**
     * Starts the loopback TCP server for the data folder's database and publishes its port; closing
     * the result removes the port file and stops the server.
     */
    static AutoCloseable serve(Path dataDir) throws SQLException, IOException {
        loopbackOnly();
        // without -tcpAllowOthers H2 also refuses connections from other hosts
        Server server = Server.createTcpServer("-tcpPort", "0").start();
        Path portFile = dataDir.resolve(PORT_FILE);
        try {
            Files.writeString(portFile, Integer.toString(server.getPort()), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            server.stop();
            throw e;
        }
        return () -> {
            Files.deleteIfExists(portFile);
            server.stop();
        };
    }

    /**
     * The configuration a one-off command should use: through the running server's TCP port when
     * one answers, else the file itself.
     */
    static ServerConfig forOneOffCommand(ServerConfig config) {
        if (!config.database().embedded()) {
            return config;
        }
        DatabaseConfig db = config.database();
        return runningServerPort(config.dataDir())
                .map(port -> config.withDatabase(new DatabaseConfig(
                        db.embeddedTcpUrl(config.dataDir(), port), db.user(), db.password(), ONE_OFF_POOL_SIZE)))
                .orElse(config);
    }

    /**
     * {@code failure} to open the database of {@code dataDir}, said more precisely when the file is
     * held and a Retrysafe server runs on the folder (its port file names a port that answers).
     * Only a failure that is the file lock is rewritten: a port that answers could be another
     * program's after a killed server, so the port alone never refuses a start.
     */
    static DatabaseUnavailableException explain(Path dataDir, DatabaseUnavailableException failure) {
        if (!(failure.getCause() instanceof SQLException cause)
                || cause.getErrorCode() != ConnectionCheck.H2_FILE_IN_USE) {
            return failure;
        }
        return runningServerPort(dataDir)
                .map(port -> new DatabaseUnavailableException(
                        "another Retrysafe server is running on the data folder "
                                + dataDir.toAbsolutePath().normalize() + " (its database answers on 127.0.0.1:" + port
                                + "): stop it first, or give this server a folder of its own"
                                + " (RETRYSAFE_DATA_DIR=other-folder)",
                        cause))
                .orElse(failure);
    }

    /** Whether {@code dataDir} holds an embedded database (a server or {@code migrate} has made it). */
    static boolean exists(Path dataDir) {
        return Files.isRegularFile(dataDir.resolve(DATABASE_FILE));
    }

    private static Optional<Integer> runningServerPort(Path dataDir) {
        Path portFile = dataDir.resolve(PORT_FILE);
        try {
            int port = Integer.parseInt(
                    Files.readString(portFile, StandardCharsets.US_ASCII).strip());
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), PROBE_TIMEOUT_MILLIS);
            }
            return Optional.of(port);
        } catch (IOException | NumberFormatException e) {
            // no server (never started, or killed and its port file left behind): use the file
            return Optional.empty();
        }
    }
}

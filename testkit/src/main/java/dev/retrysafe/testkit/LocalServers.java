package dev.retrysafe.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** What the private servers of the tests ({@link RedisServerProcess}, {@link PostgresServerProcess}) share. */
final class LocalServers {

    private LocalServers() {}

    /** A free TCP port on the loopback interface (free when this returns; a race is unlikely). */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    /** Removes a server's JVM shutdown hook once the server is closed; quiet if there is nothing to undo. */
    static void removeShutdownHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // the JVM is shutting down already, or the hook was never added: nothing to undo
        }
    }

    /** Deletes {@code dir} and everything in it; quiet if that fails. */
    static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a leftover folder in the temp directory harms nothing; ./test sweeps it
        }
    }
}

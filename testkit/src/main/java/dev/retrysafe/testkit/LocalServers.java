package dev.retrysafe.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** What the private servers of the tests ({@link RedisServerProcess}, {@link PostgresServerProcess}) share. */
final class LocalServers {

    private LocalServers() {
    }

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
}

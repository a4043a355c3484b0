package dev.retrysafe.delivery.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * The last step before a socket is opened: it sees exactly the addresses the client will dial.
 * Production lets them through ({@link #DIRECT}); tests record them and refuse to dial, so a broken
 * guard fails a test instead of sending traffic to a real address.
 */
@FunctionalInterface
public interface ConnectGate {

    /** Dials what it is given. */
    ConnectGate DIRECT = addresses -> addresses;

    /**
     * The addresses to dial, in order, for a new connection to checked {@code addresses}.
     *
     * @throws IOException to fail the connection instead
     */
    List<InetSocketAddress> admit(List<InetSocketAddress> addresses) throws IOException;
}

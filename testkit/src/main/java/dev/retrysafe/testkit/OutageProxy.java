package dev.retrysafe.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarding proxy on a free loopback port in front of a loopback server, which a test can
 * {@linkplain #cut() cut} and {@linkplain #restore() restore}: an outage of a shared server (the
 * machine's Redis, say) as its clients see it, without touching the server. Cut, every open
 * connection is closed and every new one is accepted and closed at once (a client sees its
 * connection drop and its reconnects fail); restored, connections are forwarded again. The
 * server keeps its state throughout, as it would behind a network partition. Only loopback
 * addresses, on both sides. Threadsafe; {@link #close()} stops it and closes every connection.
 */
public final class OutageProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean cut;
    private volatile boolean closed;

    private OutageProxy(int targetPort) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        this.target = new InetSocketAddress(loopback, targetPort);
        this.listener = new ServerSocket(0, 50, loopback);
        this.acceptor = Thread.ofPlatform()
                .daemon()
                .name("outage-proxy-" + listener.getLocalPort())
                .start(this::accept);
    }

    /** A proxy on a free loopback port forwarding to {@code targetPort} on the loopback interface. */
    public static OutageProxy to(int targetPort) {
        try {
            return new OutageProxy(targetPort);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a loopback port for the proxy", e);
        }
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Starts the outage: closes every open connection and drops every new one. */
    public void cut() {
        cut = true;
        closeAll();
    }

    /** Ends the outage: new connections are forwarded again. */
    public void restore() {
        cut = false;
    }

    /** Connections being forwarded now (each counted once, client side). */
    public int openConnections() {
        return open.size() / 2;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (cut || closed) {
                quietly(client);
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(target, 1_000);
            } catch (IOException e) {
                quietly(client);
                quietly(server);
                continue;
            }
            open.add(client);
            open.add(server);
            Thread.ofVirtual().start(() -> pump(client, server));
            Thread.ofVirtual().start(() -> pump(server, client));
        }
    }

    /** Copies {@code from} to {@code to} until either ends, then closes both. */
    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0 && !cut) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed or was cut: close the pair below
        } finally {
            quietly(from);
            quietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    private void closeAll() {
        for (Socket socket : open) {
            quietly(socket);
        }
    }

    private static void quietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing: nothing left to do
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // closing
        }
        closeAll();
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

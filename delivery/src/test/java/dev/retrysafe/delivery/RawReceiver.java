package dev.retrysafe.delivery;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A webhook receiver on a loopback socket, written byte by byte so that it can misbehave in ways a
 * real server will not: never answer, stop after the headers, reset, send 100 MB. Each connection
 * runs its {@link Behaviour} on a virtual thread. Threadsafe.
 */
final class RawReceiver implements AutoCloseable {

    /** What the receiver does with one request. */
    @FunctionalInterface
    interface Behaviour {
        void handle(Socket socket, Received request) throws IOException;
    }

    /** A request as received: the request line, headers by lower-case name, the body. */
    record Received(String requestLine, Map<String, String> headers, byte[] body) {}

    private final ServerSocket server;
    private final Behaviour behaviour;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Received> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    private RawReceiver(InetAddress bind, Behaviour behaviour) throws IOException {
        this.server = new ServerSocket();
        this.server.bind(new InetSocketAddress(bind, 0), 50);
        this.behaviour = behaviour;
        this.acceptor =
                Thread.ofVirtual().name("raw-receiver-" + server.getLocalPort()).start(this::acceptLoop);
    }

    static RawReceiver on127(Behaviour behaviour) throws IOException {
        return new RawReceiver(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), behaviour);
    }

    static RawReceiver onIpv6Loopback(Behaviour behaviour) throws IOException {
        byte[] loopback = new byte[16];
        loopback[15] = 1;
        return new RawReceiver(InetAddress.getByAddress(loopback), behaviour);
    }

    int port() {
        return server.getLocalPort();
    }

    /** {@code http://127.0.0.1:port/hook} (or the IPv6 loopback in brackets). */
    URI url() {
        String host = server.getInetAddress().getAddress().length == 16 ? "[::1]" : "127.0.0.1";
        return URI.create("http://" + host + ":" + port() + "/hook");
    }

    /** Connections accepted so far. */
    int connections() {
        return connections.get();
    }

    /** Requests read so far. */
    List<Received> requests() {
        return List.copyOf(requests);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            connections.incrementAndGet();
            sockets.add(socket);
            Thread.ofVirtual().start(() -> serve(socket));
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            while (!socket.isClosed()) {
                Received request = read(socket.getInputStream());
                if (request == null) {
                    return;
                }
                requests.add(request);
                behaviour.handle(socket, request);
            }
        } catch (IOException e) {
            // the client went away: expected for every hostile case
        }
    }

    private static Received read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(
                        lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        return new Received(lines[0], headers, body);
    }

    /** Reads until the client closes the connection: the receiver that never answers. */
    static void waitForClientToLeave(Socket socket) throws IOException {
        try {
            while (socket.getInputStream().read() >= 0) {
                // discard
            }
        } catch (SocketException e) {
            // reset by the client: it left
        }
    }

    /** Writes a complete answer with a body. */
    static void answer(Socket socket, String statusLine, String extraHeaders, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + statusLine + "\r\n" + extraHeaders + "Content-Length: " + bytes.length + "\r\n\r\n";
        socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
        acceptor.interrupt();
    }
}

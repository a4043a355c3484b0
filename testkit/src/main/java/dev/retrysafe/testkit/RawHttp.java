package dev.retrysafe.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP/1.1 exchange written by hand on a socket to 127.0.0.1, for what the JDK's client will
 * not send: a WebSocket upgrade whose answer is read as HTTP, or a broken handshake. It reads the
 * answer's head and, when the head gives a {@code Content-Length} (and the answer is no
 * {@code 1xx}), that many bytes of body, then closes the connection (a {@code 101}'s too: its
 * WebSocket is never used); {@link #read} reads answers from a connection a test keeps.
 * Threadsafe (no state).
 */
public final class RawHttp {

    private static final SecureRandom RANDOM = new SecureRandom();

    private RawHttp() {}

    /**
     * An answer.
     *
     * @param status  the status code
     * @param headers the first value of each header, by its name in lower case
     * @param head    the status line and headers as received
     * @param body    the body (empty when the head gave no length)
     */
    public record Answer(int status, Map<String, String> headers, String head, String body) {

        /** A header's first value, or {@code null}. */
        public @Nullable String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        /** The content type, or the empty string. */
        public String contentType() {
            String type = header("Content-Type");
            return type == null ? "" : type;
        }

        /** The head and body as received. */
        public String raw() {
            return head + body;
        }
    }

    /**
     * A complete WebSocket upgrade request (RFC 6455, with a fresh {@code Sec-WebSocket-Key}) for
     * {@code target} on the server at {@code base}, with {@code Authorization: Bearer apiKey} when
     * {@code apiKey} is not {@code null}.
     */
    public static String webSocketUpgrade(URI base, String target, @Nullable String apiKey) {
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        return "GET " + target + " HTTP/1.1\r\n"
                + "Host: 127.0.0.1:" + base.getPort() + "\r\n"
                + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + Base64.getEncoder().encodeToString(nonce) + "\r\n"
                + "Sec-WebSocket-Version: 13\r\n"
                + (apiKey == null ? "" : "Authorization: Bearer " + apiKey + "\r\n")
                + "\r\n";
    }

    /**
     * Sends {@code request} exactly as written to the server at {@code base}; every read has
     * {@code timeout}. A {@code HEAD} must carry {@code Connection: close}: its answer's body is
     * then whatever the server sends after the head until it closes, which must be nothing.
     */
    public static Answer exchange(URI base, String request, Duration timeout) {
        if (head(request) && !request.toLowerCase(Locale.ROOT).contains("\r\nconnection: close\r\n")) {
            throw new IllegalArgumentException(
                    "a HEAD request must carry Connection: close, or its answer's end cannot be seen");
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", base.getPort()), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return read(socket.getInputStream(), head(request));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads one answer from {@code in}: its head and, when the head gives a {@code Content-Length}
     * (and the answer is no {@code 1xx}), that many bytes of body, leaving {@code in} at the next
     * answer; the answer to a {@code HEAD} ({@code toHead}) takes whatever comes until the close.
     */
    public static Answer read(InputStream in, boolean toHead) throws IOException {
        String head = readHead(in);
        Map<String, String> headers = new LinkedHashMap<>();
        String[] lines = head.split("\r\n");
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.putIfAbsent(
                        lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).strip());
            }
        }
        int status = status(lines[0]);
        String length = headers.get("content-length");
        byte[] body;
        if (toHead) {
            // its answer gives the length of the body it leaves out: whatever comes before the close is extra
            body = in.readAllBytes();
        } else {
            body = status < 200 || length == null ? new byte[0] : in.readNBytes(Integer.parseInt(length));
        }
        return new Answer(status, headers, head, new String(body, StandardCharsets.UTF_8));
    }

    /** The status code of an HTTP/1.x status line; anything else is an error that quotes it. */
    private static int status(String line) throws IOException {
        String[] parts = line.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/") || !parts[1].matches("[1-5][0-9][0-9]")) {
            throw new ProtocolException("not an HTTP status line: \"" + line + "\"");
        }
        return Integer.parseInt(parts[1]);
    }

    private static boolean head(String request) {
        return request.startsWith("HEAD ");
    }

    /** Reads an HTTP answer's head (status line and headers, through the empty line) from {@code in}. */
    public static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the connection closed before the answer's head ended: " + head);
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }
}

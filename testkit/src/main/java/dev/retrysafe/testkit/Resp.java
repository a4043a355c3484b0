package dev.retrysafe.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One Redis command over a fresh loopback socket, in RESP, for the fixtures that start Redis
 * ({@link RedisServerProcess}, {@link RedisClusterProcess}): the testkit has no Redis client, and
 * the administration they do (PING, CLUSTER ...) needs only replies that are one value.
 */
final class Resp {

    /** The longest line of a reply read here: status lines, numbers and error messages are short. */
    private static final int MAX_LINE = 4096;

    private Resp() {}

    /** Redis answered with an error ({@code -ERR ...}). */
    static final class ErrorReply extends IOException {
        private static final long serialVersionUID = 1L;

        ErrorReply(String message) {
            super(message);
        }
    }

    /**
     * Sends {@code arguments} as one command to {@code 127.0.0.1:port} and returns the reply: a
     * status (without its {@code +}), a number, or a bulk string ({@code null} for a nil one).
     *
     * @throws ErrorReply  when Redis answers with an error
     * @throws IOException when it cannot be reached within {@code timeout}, or answers an array
     */
    static @Nullable String call(int port, Duration timeout, String... arguments) throws IOException {
        int millis = (int) Math.max(1, timeout.toMillis());
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), millis);
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write(encode(arguments));
            out.flush();
            return read(socket.getInputStream());
        }
    }

    private static byte[] encode(String... arguments) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("*" + arguments.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String argument : arguments) {
            byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
            out.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(bytes);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return out.toByteArray();
    }

    private static @Nullable String read(InputStream in) throws IOException {
        String line = line(in);
        if (line.isEmpty()) {
            throw new IOException("empty reply");
        }
        String rest = line.substring(1);
        return switch (line.charAt(0)) {
            case '+', ':' -> rest;
            case '-' -> throw new ErrorReply(rest);
            case '$' -> {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    yield null;
                }
                byte[] body = in.readNBytes(length + 2); // the text, then CRLF
                if (body.length != length + 2) {
                    throw new IOException("connection closed in a reply of " + length + " bytes");
                }
                yield new String(body, 0, length, StandardCharsets.UTF_8);
            }
            default -> throw new IOException("unexpected reply: " + line);
        };
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("connection closed after '" + line + "'");
            }
            if (line.length() >= MAX_LINE) {
                throw new IOException("reply line longer than " + MAX_LINE + " characters");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}

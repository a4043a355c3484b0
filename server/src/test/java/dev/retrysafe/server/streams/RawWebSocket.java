package dev.retrysafe.server.streams;

import dev.retrysafe.testkit.RawHttp;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A WebSocket client made of a bare socket, for what the JDK's client does for you and a test
 * must not have done: it never answers a ping, it can stop reading altogether (with a small
 * receive buffer, so the server's writes back up quickly), and it sends a message in fragments of
 * the size it is told. Only loopback. Not threadsafe.
 */
final class RawWebSocket implements AutoCloseable {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int OP_CONTINUATION = 0x0;
    private static final int OP_TEXT = 0x1;
    private static final int OP_CLOSE = 0x8;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final List<String> texts = new ArrayList<>();
    private int pings;
    private int closeCode;

    private RawWebSocket(Socket socket) throws IOException {
        this.socket = socket;
        // buffered: a stalled client that reads again drains what waited for it at once
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Opens the stream of the server at {@code base} with {@code apiKey}, the socket receiving at most {@code receiveBuffer} bytes ahead. */
    static RawWebSocket open(URI base, String apiKey, int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(receiveBuffer);
        socket.connect(new InetSocketAddress("127.0.0.1", base.getPort()), 5000);
        socket.setSoTimeout(10_000);
        RawWebSocket ws = new RawWebSocket(socket);
        String request = RawHttp.webSocketUpgrade(base, EventStream.PATH, apiKey);
        ws.out.write(request.getBytes(StandardCharsets.US_ASCII));
        ws.out.flush();
        String head = RawHttp.readHead(ws.in);
        if (!head.startsWith("HTTP/1.1 101")) {
            socket.close();
            throw new IOException(
                    "the upgrade was refused: " + head.lines().findFirst().orElse(""));
        }
        return ws;
    }

    /** Sends {@code text} as one masked text frame, as a client must. */
    void sendText(String text) throws IOException {
        sendFrame(true, OP_TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends {@code text} as a text message in fragments of {@code size} bytes (the last may be
     * shorter); without {@code finish} the last fragment is held back, so the message never ends.
     */
    void sendFragments(String text, int size, boolean finish) throws IOException {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        int fragments = Math.ceilDiv(payload.length, size);
        for (int i = 0; i < fragments; i++) {
            boolean last = i == fragments - 1;
            if (last && !finish) {
                return;
            }
            sendFrame(
                    last,
                    i == 0 ? OP_TEXT : OP_CONTINUATION,
                    Arrays.copyOfRange(payload, i * size, Math.min(payload.length, (i + 1) * size)));
        }
    }

    private void sendFrame(boolean fin, int opcode, byte[] payload) throws IOException {
        if (payload.length > 0xffff) {
            throw new IllegalArgumentException("frames of this client stay under 64 KiB, not " + payload.length);
        }
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.write((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            frame.write(0x80 | payload.length);
        } else {
            frame.write(0x80 | 126);
            frame.write(payload.length >>> 8);
            frame.write(payload.length & 0xff);
        }
        byte[] mask = new byte[4];
        RANDOM.nextBytes(mask);
        frame.write(mask);
        for (int i = 0; i < payload.length; i++) {
            frame.write(payload[i] ^ mask[i % 4]);
        }
        out.write(frame.toByteArray());
        out.flush();
    }

    /** Reads frames until {@code n} text messages in all were read, within {@code within}. */
    List<String> readTexts(int n, Duration within) throws IOException {
        long deadline = System.nanoTime() + within.toNanos();
        while (texts.size() < n) {
            int opcode = readFrame(deadline);
            if (opcode == OP_CLOSE || opcode == -1) {
                throw new AssertionError("closed after " + texts);
            }
        }
        return texts;
    }

    /**
     * Reads frames (never answering pings) until the server's close frame or the end of the
     * stream, within {@code within}; answers the close code, or -1 if the socket ended without one.
     */
    int readUntilClosed(Duration within) throws IOException {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            int opcode = readFrame(deadline);
            if (opcode == -1) {
                return -1;
            }
            if (opcode == OP_CLOSE) {
                return closeCode;
            }
        }
    }

    /** Reads one frame; answers its opcode, or -1 at the end of the stream. */
    private int readFrame(long deadline) throws IOException {
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("nothing expected came in time; texts: " + texts);
            }
            socket.setSoTimeout((int) Math.max(1, Duration.ofNanos(left).toMillis()));
            int first;
            try {
                first = in.read();
            } catch (SocketTimeoutException e) {
                continue;
            }
            if (first < 0) {
                return -1;
            }
            int opcode = first & 0x0f;
            long length = in.read() & 0x7f;
            if (length == 126) {
                length = (in.read() << 8) | in.read();
            } else if (length == 127) {
                length = 0;
                for (int i = 0; i < 8; i++) {
                    length = (length << 8) | in.read();
                }
            }
            byte[] payload = in.readNBytes((int) length);
            switch (opcode) {
                case OP_TEXT -> texts.add(new String(payload, StandardCharsets.UTF_8));
                case 0x9 -> pings++;
                case OP_CLOSE ->
                    closeCode = payload.length >= 2 ? ((payload[0] & 0xff) << 8) | (payload[1] & 0xff) : 1005;
                default -> {
                    // pongs, continuations: not expected, ignored
                }
            }
            return opcode;
        }
    }

    /** Text messages read so far. */
    List<String> texts() {
        return texts;
    }

    /** Pings read (and left unanswered) so far. */
    int pings() {
        return pings;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}

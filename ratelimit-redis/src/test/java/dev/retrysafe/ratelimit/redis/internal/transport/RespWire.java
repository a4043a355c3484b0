package dev.retrysafe.ratelimit.redis.internal.transport;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/** The server's side of RESP2 for fake Redis servers in tests: reading what a client sent. */
final class RespWire {

    private RespWire() {}

    /** One command (an array of bulk strings), as the client sent it, bytes and all. */
    static byte[] readCommand(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        String count = line(in, bytes);
        int parts = Integer.parseInt(count.substring(1));
        for (int i = 0; i < parts; i++) {
            int length = Integer.parseInt(line(in, bytes).substring(1));
            bytes.write(in.readNBytes(length + 2));
        }
        return bytes.toByteArray();
    }

    private static String line(InputStream in, ByteArrayOutputStream copy) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException();
            }
            copy.write(b);
            if (b != '\r') {
                line.append((char) b);
            }
        }
        copy.write('\n');
        return line.toString();
    }
}

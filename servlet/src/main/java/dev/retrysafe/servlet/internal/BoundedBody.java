package dev.retrysafe.servlet.internal;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/** Reads a request body without ever holding more than the bound plus one read buffer. */
final class BoundedBody {

    private static final int CHUNK = 8192;

    private BoundedBody() {}

    /**
     * The body of {@code request} within {@code max} bytes, or {@code null} when it is larger; a
     * refused body is still drained, up to four times the bound, so that the client reads the
     * 413 instead of a reset connection.
     */
    static byte @Nullable [] ofRequest(HttpServletRequest request, int max) throws IOException {
        long declared = request.getContentLengthLong();
        long drainLimit = 4L * max;
        if (declared > max) {
            discard(request.getInputStream(), drainLimit); // refused before buffering a byte
            return null;
        }
        byte[] body = read(request.getInputStream(), max);
        if (body == null) {
            discard(request.getInputStream(), drainLimit);
        }
        return body;
    }

    /**
     * Reads and drops what is left of {@code request}'s body, up to {@code limit} bytes, so that
     * its connection can carry the client's next request once {@code response} is sent; a longer
     * body closes the connection, which {@code response} then says ({@code Connection: close}).
     */
    static void release(HttpServletRequest request, HttpServletResponse response, long limit) throws IOException {
        long declared = request.getContentLengthLong();
        if (declared > limit || (declared != 0 && !discard(request.getInputStream(), limit))) {
            response.setHeader("Connection", "close");
        }
    }

    /**
     * The whole of {@code in}, or {@code null} as soon as it proves longer than {@code max}
     * bytes (the rest is left unread). The buffer grows with the bytes that arrive, never from a
     * declared length: a client that declares a megabyte and sends nothing costs nothing.
     */
    static byte @Nullable [] read(InputStream in, int max) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(BodyReader.INITIAL_BUFFER);
        byte[] chunk = new byte[CHUNK];
        int n;
        while ((n = in.read(chunk, 0, (int) Math.min(CHUNK, (long) max + 1 - body.size()))) > 0) {
            body.write(chunk, 0, n);
            if (body.size() > max) {
                return null;
            }
        }
        return body.toByteArray();
    }

    /**
     * Reads and drops up to {@code limit} more bytes of {@code in}. A server that refuses a body
     * and closes the connection while the client is still sending makes the client's TCP stack
     * see a reset, which can destroy the refusal before the client reads it; draining a bounded
     * amount first lets an ordinary oversized request get its 413.
     *
     * @return whether {@code in} ended within the limit (nothing of it is left unread)
     */
    static boolean discard(InputStream in, long limit) throws IOException {
        byte[] chunk = new byte[CHUNK];
        long left = limit;
        int n;
        while (left > 0) {
            n = in.read(chunk, 0, (int) Math.min(CHUNK, left));
            if (n < 0) {
                return true;
            }
            left -= n;
        }
        return in.read() < 0;
    }
}

package dev.retrysafe.ratelimit.redis.internal.transport;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.ratelimit.redis.internal.ScriptReply;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.internal.ExceptionFactory;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One plain TCP connection to a Redis server speaking RESP2, used by one thread at a time, each
 * command written in one write and its reply read before the next is sent. Just what
 * {@link DirectLane} needs: commands of bulk strings, replies of integers, bulk and simple
 * strings, arrays and errors. Replies come back as Lettuce's {@code ScriptOutputType.MULTI} gives
 * them ({@code Long}, {@code byte[]}, {@code List}, {@code null}), so that {@link ScriptReply}
 * reads both alike; an error reply is thrown as the exception Lettuce would throw for it.
 *
 * <p>A read that would block waits without a timeout of its own (on a virtual thread, a timed
 * read schedules a timer task per read): the {@link Deadlines} thread closes the socket if the
 * reply is not in by the command's deadline, and the read then fails with a
 * {@link SocketTimeoutException} as a timed read would.
 *
 * <p>Any {@link IOException} (timeouts included) or protocol error leaves the connection in an
 * unknown state: its caller must {@link #close()} it. Not threadsafe.
 */
final class RespConnection implements AutoCloseable {

    /** The longest reply line (a number, an error message) read; Redis's are far shorter. */
    private static final int MAX_LINE = 64 * 1024;
    /** The largest bulk string or array accepted in a reply; {@code decide.lua}'s are tiny. */
    private static final int MAX_LENGTH = 16 * 1024 * 1024;

    private static final byte[] CRLF = {'\r', '\n'};

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final SpinWait spin;
    private final Deadlines deadlines;
    private byte[] output = new byte[1024];
    private int written;
    private final byte[] input = new byte[8192];
    private int position;
    private int limit;
    /** Deadline of the command being read, in {@link MonotonicClock#nanoTime()} terms. */
    private long deadline;
    /** The first error in the reply being read, thrown once all of it is read. */
    private @Nullable RedisCommandExecutionException error;

    private RespConnection(Socket socket, SpinWait spin, Deadlines deadlines) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.spin = spin;
        this.deadlines = deadlines;
    }

    /**
     * Connects to {@code address}, waiting at most {@code timeoutNanos} for the connection and the
     * commands of {@code handshake} (AUTH, SELECT, ...) together, which must all answer without an
     * error. A reply is awaited by polling the socket as {@code spin} allows, then in a blocking read
     * whose deadline {@code deadlines} keeps.
     */
    static RespConnection open(
            InetSocketAddress address, long timeoutNanos, List<byte[][]> handshake, SpinWait spin, Deadlines deadlines)
            throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setKeepAlive(true);
            long deadline = MonotonicClock.nanoTime() + timeoutNanos;
            socket.connect(address, (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutNanos / 1_000_000)));
            RespConnection connection = new RespConnection(socket, spin, deadlines);
            for (byte[][] command : handshake) {
                connection.command(command, deadline);
            }
            return connection;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Sends {@code command} (its parts as bulk strings) and reads its reply, both before
     * {@code deadlineNanos}.
     *
     * @throws SocketTimeoutException when the reply is not in by the deadline
     * @throws io.lettuce.core.RedisCommandExecutionException when Redis answers with an error
     */
    @Nullable
    Object command(byte[][] command, long deadlineNanos) throws IOException {
        written = 0;
        header('*', command.length);
        for (byte[] part : command) {
            bulk(part);
        }
        return send(deadlineNanos);
    }

    /**
     * Sends {@code name}, then {@code first}, the number of {@code keys}, the keys and the
     * arguments (as {@code EVALSHA} and {@code EVAL} take them), and reads the reply.
     */
    @Nullable
    Object script(byte[] name, byte[] first, byte[][] keys, byte[][] arguments, long deadlineNanos) throws IOException {
        written = 0;
        header('*', 3 + keys.length + arguments.length);
        bulk(name);
        bulk(first);
        int digits = digits(keys.length);
        header('$', digits);
        number(keys.length, digits);
        append(CRLF);
        for (byte[] key : keys) {
            bulk(key);
        }
        for (byte[] argument : arguments) {
            bulk(argument);
        }
        return send(deadlineNanos);
    }

    private @Nullable Object send(long deadlineNanos) throws IOException {
        deadline = deadlineNanos;
        out.write(output, 0, written);
        out.flush();
        error = null;
        Object reply = reply();
        RedisCommandExecutionException failed = error;
        if (failed != null) {
            throw failed;
        }
        return reply;
    }

    private void bulk(byte[] value) {
        header('$', value.length);
        append(value);
        append(CRLF);
    }

    private void header(char type, int length) {
        int digits = digits(length);
        ensure(1 + digits + 2);
        output[written++] = (byte) type;
        number(length, digits);
        output[written++] = '\r';
        output[written++] = '\n';
    }

    private void number(int value, int digits) {
        ensure(digits);
        for (int i = written + digits - 1; i >= written; i--) {
            output[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        written += digits;
    }

    private static int digits(int value) {
        int digits = 1;
        while (value >= 10) {
            value /= 10;
            digits++;
        }
        return digits;
    }

    private void append(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, output, written, bytes.length);
        written += bytes.length;
    }

    private void ensure(int more) {
        if (written + more > output.length) {
            output = Arrays.copyOf(output, Math.max(output.length * 2, written + more));
        }
    }

    /**
     * One reply, read to its end even when it holds an error (which goes in {@link #error}, the
     * first one only), so that the connection stays in step with Redis.
     */
    private @Nullable Object reply() throws IOException {
        int type = read();
        switch (type) {
            case ':':
                return lineNumber();
            case '$': {
                long length = lineNumber();
                if (length < 0) {
                    return null;
                }
                byte[] value = new byte[checkedLength(length)];
                readFully(value);
                expectCrlf();
                return value;
            }
            case '*': {
                long count = lineNumber();
                if (count < 0) {
                    return null;
                }
                List<@Nullable Object> values = new ArrayList<>(checkedLength(count));
                for (long i = 0; i < count; i++) {
                    values.add(reply());
                }
                return values;
            }
            case '+':
                return line().getBytes(StandardCharsets.UTF_8);
            case '-': {
                String message = line();
                if (error == null) {
                    // the exception Lettuce makes of the same reply (NOSCRIPT, BUSY, LOADING, ...)
                    error = ExceptionFactory.createExecutionException(message);
                }
                return null;
            }
            default:
                throw new IOException("not a RESP2 reply: type byte " + type);
        }
    }

    private static int checkedLength(long length) throws IOException {
        if (length > MAX_LENGTH) {
            throw new IOException("RESP2 reply too long: " + length);
        }
        return (int) length;
    }

    /** A line's integer (lengths, counts, integer replies), without making a string of it. */
    private long lineNumber() throws IOException {
        boolean negative = false;
        long value = 0;
        int digits = 0;
        int b = read();
        if (b == '-') {
            negative = true;
            b = read();
        }
        while (b != '\r') {
            if (b < '0' || b > '9' || ++digits > 19) {
                throw new IOException("not a RESP2 number: byte " + b);
            }
            value = value * 10 + (b - '0');
            b = read();
        }
        if (digits == 0 || read() != '\n') {
            throw new IOException("malformed RESP2 number");
        }
        return negative ? -value : value;
    }

    private String line() throws IOException {
        StringBuilder text = new StringBuilder();
        int b;
        while ((b = read()) != '\r') {
            if (text.length() >= MAX_LINE) {
                throw new IOException("RESP2 line too long");
            }
            text.append((char) b);
        }
        if (read() != '\n') {
            throw new IOException("malformed RESP2 line");
        }
        // Redis's messages are ASCII but may quote what a script said: decode as UTF-8
        return new String(text.toString().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    private void expectCrlf() throws IOException {
        if (read() != '\r' || read() != '\n') {
            throw new IOException("malformed RESP2 bulk string");
        }
    }

    private void readFully(byte[] into) throws IOException {
        int done = 0;
        while (done < into.length) {
            if (position == limit) {
                fill();
            }
            int n = Math.min(into.length - done, limit - position);
            System.arraycopy(input, position, into, done, n);
            position += n;
            done += n;
        }
    }

    private int read() throws IOException {
        if (position == limit) {
            fill();
        }
        return input[position++] & 0xff;
    }

    private void fill() throws IOException {
        long now = MonotonicClock.nanoTime();
        long pollUntil = spin.pollUntil(now, deadline);
        boolean answered = false;
        if (pollUntil != now) {
            while (!(answered = in.available() > 0) && (now = MonotonicClock.nanoTime()) - pollUntil < 0) {
                Thread.onSpinWait();
            }
            spin.polled(answered, now);
        }
        if (deadline - now <= 0) {
            throw late();
        }
        int n;
        if (answered) {
            n = in.read(input, 0, input.length); // something is there: returns at once
        } else {
            BlockingRead read = new BlockingRead(deadline, socket);
            deadlines.track(read);
            try {
                n = in.read(input, 0, input.length);
            } catch (IOException e) {
                if (!read.finish()) {
                    throw late();
                }
                throw e;
            }
            if (!read.finish()) {
                // the socket is being closed under it: what came is too late, and all there is
                throw late();
            }
        }
        if (n < 0) {
            throw new EOFException("Redis closed the connection");
        }
        position = 0;
        limit = n;
    }

    /**
     * A read that may block, ended at its deadline by closing the socket: whichever comes first,
     * the read's end ({@link #finish}) or the deadline ({@link #expire}), decides.
     */
    private static final class BlockingRead extends AtomicInteger implements Deadlines.Expiring {
        private static final int READING = 0;
        private static final int READ = 1;
        private static final int EXPIRED = 2;
        private final long deadline;
        private final Socket socket;

        BlockingRead(long deadline, Socket socket) {
            this.deadline = deadline;
            this.socket = socket;
        }

        @Override
        public long deadline() {
            return deadline;
        }

        @Override
        public boolean isDone() {
            return get() != READING;
        }

        @Override
        public void expire() {
            if (compareAndSet(READING, EXPIRED)) {
                closeQuietly(socket);
            }
        }

        /** Whether the read ended before its deadline was enforced; if not, the socket is closed. */
        boolean finish() {
            return compareAndSet(READING, READ);
        }
    }

    private static SocketTimeoutException late() {
        return new SocketTimeoutException("no reply from Redis in time");
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway; nothing to do
        }
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }
}

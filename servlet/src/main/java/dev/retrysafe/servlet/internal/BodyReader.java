package dev.retrysafe.servlet.internal;

import dev.retrysafe.servlet.ReadDeadlines;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.concurrent.TimeoutException;

/**
 * Reads one request body into memory within its limits: its buffer grows with the bytes that
 * arrive (never from a declared length), each growth granted by the shared {@link BufferBudget};
 * the whole body must arrive before {@code timeout} and, from {@code grace} on, at an average
 * of at least {@code minRate} bytes per second since the reading began. Used by one request.
 */
final class BodyReader {

    /** The first buffer, allocated when the reading starts (a few hundred bytes cost nothing). */
    static final int INITIAL_BUFFER = 512;

    /** What came of reading a body. */
    sealed interface Outcome permits Read, TooLarge, TimedOut, Broken, Busy {}

    /** The whole body. @param body exactly the bytes received */
    record Read(byte[] body) implements Outcome {}

    /** More than the limit arrived (the rest is left unread). */
    record TooLarge() implements Outcome {}

    /** The body was too slow. @param received bytes received by then */
    record TimedOut(long received) implements Outcome {}

    /** The read failed for another reason: the client left, or the framing is broken. @param cause why */
    record Broken(IOException cause) implements Outcome {}

    /** The shared budget could not grant the next growth. */
    record Busy() implements Outcome {}

    private final BodySettings settings;
    private final BufferBudget budget;
    private long taken;

    BodyReader(BodySettings settings, BufferBudget budget) {
        this.settings = settings;
        this.budget = budget;
    }

    /** The bytes this reader took from the budget; the caller gives them back once the body is dropped. */
    long taken() {
        return taken;
    }

    /**
     * Reads {@code in} to its end.
     *
     * @param start {@link BodySettings#nanoTime()} when the request's headers had arrived
     */
    Outcome read(InputStream in, ReadDeadlines.Deadline deadline, long start) {
        int max = settings.maxBodyBytes();
        byte[] buffer = new byte[0];
        int length = 0;
        while (true) {
            if (length == buffer.length) {
                int capacity = (int) Math.min(max + 1L, Math.max(INITIAL_BUFFER, 2L * length));
                if (!budget.tryTake(capacity - buffer.length)) {
                    return new Busy();
                }
                taken += capacity - buffer.length;
                buffer = Arrays.copyOf(buffer, capacity);
            }
            long left = deadlineAfter(start, length) - settings.nanoTime().getAsLong();
            if (left <= 0) {
                return new TimedOut(length);
            }
            int n;
            try {
                deadline.within(left);
                n = in.read(buffer, length, buffer.length - length);
            } catch (IOException e) {
                boolean late = settings.nanoTime().getAsLong() - deadlineAfter(start, length) >= 0;
                return late || isTimeout(e) ? new TimedOut(length) : new Broken(e);
            }
            if (n < 0) {
                return new Read(length == buffer.length ? buffer : Arrays.copyOf(buffer, length));
            }
            length += n;
            if (length > max) {
                return new TooLarge();
            }
        }
    }

    /** When a body of which {@code received} bytes have arrived becomes too slow. */
    long deadlineAfter(long start, long received) {
        long deadline = start + settings.timeoutNanos();
        if (settings.minRate() > 0) {
            // received bytes buy received / minRate seconds past the grace
            long earned = received >= Long.MAX_VALUE / 1_000_000_000L
                    ? Long.MAX_VALUE / 2
                    : received * 1_000_000_000L / settings.minRate();
            long byRate = start + settings.graceNanos() + earned;
            if (byRate - deadline < 0) {
                deadline = byRate;
            }
        }
        return deadline;
    }

    /** Whether {@code e} says a read waited too long (the container's timeout or ours). */
    static boolean isTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException || t instanceof InterruptedIOException) {
                return true;
            }
        }
        return false;
    }
}

package dev.retrysafe.liveevents.internal;

import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The bounded send buffer of one connection: frames wait here, and at most one is handed to the
 * socket at a time, the next when it was written. Nothing ever waits for the client: a frame
 * that would take the buffer past its bound of messages or bytes is refused, the buffer is
 * dropped and {@link #offer} answers false (the connection is then closed), so a consumer that
 * stops reading costs at most the bound. Threadsafe.
 */
final class Outgoing {

    /** The socket side: writes {@code text} and later calls {@code done} (or {@code failed}). */
    interface Wire {
        void write(String text, Runnable done, Consumer<Throwable> failed);
    }

    private final Wire wire;
    private final int maxMessages;
    private final int maxBytes;
    private final Consumer<Integer> peak;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Frame> queue = new ArrayDeque<>();
    /** Frames queued or being written, and their bytes. */
    private int messages;

    private int bytes;
    private boolean writing;
    private boolean pumping;
    private boolean shut;

    /**
     * A buffer of at most {@code maxMessages} frames and {@code maxBytes} bytes (the frame being
     * written included) in front of {@code wire}; {@code peak} hears each new high of waiting frames.
     */
    Outgoing(Wire wire, int maxMessages, int maxBytes, Consumer<Integer> peak) {
        this.wire = wire;
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
        this.peak = peak;
    }

    /**
     * Queues {@code frame}; false if it does not fit (the buffer is dropped and takes nothing
     * more). A frame offered after {@link #shut()} is dropped and true is answered.
     */
    boolean offer(Frame frame) {
        int high;
        lock.lock();
        try {
            if (shut) {
                return true;
            }
            if (messages + 1 > maxMessages || (long) bytes + frame.bytes() > maxBytes) {
                shutLocked();
                return false;
            }
            queue.add(frame);
            messages++;
            bytes += frame.bytes();
            high = messages;
        } finally {
            lock.unlock();
        }
        peak.accept(high);
        pump();
        return true;
    }

    /** Frames queued or being written now. */
    int messages() {
        lock.lock();
        try {
            return messages;
        } finally {
            lock.unlock();
        }
    }

    /** Drops what waits and takes nothing more; a frame being written finishes. */
    void shut() {
        lock.lock();
        try {
            shutLocked();
        } finally {
            lock.unlock();
        }
    }

    private void shutLocked() {
        shut = true;
        while (!queue.isEmpty()) {
            Frame dropped = queue.poll();
            messages--;
            bytes -= dropped.bytes();
        }
    }

    /**
     * Hands frames to the wire one at a time. A write that completes at once (its callback runs
     * inside {@code write}) does not recurse: the loop here takes the next frame.
     */
    private void pump() {
        while (true) {
            Frame next;
            lock.lock();
            try {
                if (pumping || writing || queue.isEmpty()) {
                    return;
                }
                next = queue.poll();
                writing = true;
                pumping = true;
            } finally {
                lock.unlock();
            }
            try {
                wire.write(next.text(), () -> written(next), failure -> failed(next));
            } finally {
                lock.lock();
                try {
                    pumping = false;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    private void written(Frame frame) {
        release(frame);
        pump();
    }

    private void failed(Frame frame) {
        lock.lock();
        try {
            shutLocked();
        } finally {
            lock.unlock();
        }
        release(frame);
    }

    private void release(Frame frame) {
        lock.lock();
        try {
            writing = false;
            messages--;
            bytes -= frame.bytes();
        } finally {
            lock.unlock();
        }
    }
}

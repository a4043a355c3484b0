package dev.retrysafe.jobs.internal;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Holds a result between its handler and the database: in memory up to a threshold, then in a
 * temporary file (readable by its owner only) so that large results never sit in the heap. Can be
 * read any number of times (a transaction that meets a conflict runs again). {@link #close()}
 * deletes the file. Not threadsafe: one worker writes it, then reads it.
 */
final class Spool implements AutoCloseable {

    /** Bytes kept in memory before spilling to a file. */
    static final int DEFAULT_THRESHOLD = 64 * 1024;

    private final int threshold;
    private final ByteArrayOutputStream memory = new ByteArrayOutputStream();
    private @Nullable Path file;
    private @Nullable OutputStream fileOut;
    private long size;
    private boolean finished;

    Spool(int threshold) {
        this.threshold = threshold;
    }

    Spool() {
        this(DEFAULT_THRESHOLD);
    }

    /** The stream to write the result to; closing it only ends the writing. */
    OutputStream output() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                append(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                if (fileOut != null) {
                    fileOut.flush();
                }
            }
        };
    }

    private void append(byte[] b, int off, int len) throws IOException {
        if (finished) {
            throw new IOException("the result was already stored; writing after the writer returned");
        }
        if (fileOut == null && size + len > threshold) {
            Path created = Files.createTempFile("retrysafe-job-", ".result");
            file = created;
            fileOut = new BufferedOutputStream(Files.newOutputStream(created));
            memory.writeTo(fileOut);
            memory.reset();
        }
        if (fileOut != null) {
            fileOut.write(b, off, len);
        } else {
            memory.write(b, off, len);
        }
        size += len;
    }

    /** Ends the writing; the spool can be read from now on. */
    void finish() throws IOException {
        if (!finished) {
            finished = true;
            if (fileOut != null) {
                fileOut.close();
            }
        }
    }

    /** Bytes written. */
    long size() {
        return size;
    }

    /** Whether the bytes went to a file. */
    boolean spilled() {
        return file != null;
    }

    /** The file the bytes went to, if they did. */
    @Nullable
    Path file() {
        return file;
    }

    /** A new stream over everything written (after {@link #finish()}). */
    InputStream input() throws IOException {
        if (!finished) {
            throw new IllegalStateException("finish() the spool before reading it");
        }
        return file == null ? new ByteArrayInputStream(memory.toByteArray()) : Files.newInputStream(file);
    }

    /** Deletes the file, if any. */
    @Override
    public void close() throws IOException {
        try {
            if (fileOut != null) {
                fileOut.close();
            }
        } finally {
            if (file != null) {
                Files.deleteIfExists(file);
            }
        }
    }
}

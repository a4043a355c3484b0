package dev.retrysafe.jobs;

import dev.retrysafe.leasedwork.internal.Checks;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a handler returns: the result to store, with its media type. Either bytes in memory
 * ({@link #of}) or a writer that produces them ({@link #streamed}); a streamed result is spooled
 * to a temporary file (beyond its first 64 KiB) and stored from there, so a large result never
 * sits in the heap. Immutable.
 */
public final class JobOutput {

    private final String contentType;
    private final byte @Nullable [] body;
    private final @Nullable ResultWriter writer;

    private JobOutput(String contentType, byte @Nullable [] body, @Nullable ResultWriter writer) {
        this.contentType = Checks.contentType(contentType);
        this.body = body;
        this.writer = writer;
    }

    /**
     * A result held in memory (copied).
     *
     * @param contentType its media type, such as {@code text/csv; charset=utf-8} (1 to 255
     *                    characters, no line breaks)
     * @param body        the bytes
     */
    public static JobOutput of(String contentType, byte[] body) {
        return new JobOutput(contentType, Objects.requireNonNull(body, "body").clone(), null);
    }

    /**
     * A result written by {@code writer} once the handler has returned, on the worker's thread.
     *
     * @param contentType its media type (1 to 255 characters, no line breaks)
     * @param writer      writes the bytes
     */
    public static JobOutput streamed(String contentType, ResultWriter writer) {
        return new JobOutput(contentType, null, Objects.requireNonNull(writer, "writer"));
    }

    /** The result's media type. */
    public String contentType() {
        return contentType;
    }

    /** Writes the result to {@code out} (the bytes, or what the writer writes); does not close it. */
    public void writeTo(OutputStream out) throws IOException {
        if (writer != null) {
            writer.writeTo(out);
        } else if (body != null) {
            out.write(body);
        }
    }
}

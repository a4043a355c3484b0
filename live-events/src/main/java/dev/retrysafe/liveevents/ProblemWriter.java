package dev.retrysafe.liveevents;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;

/**
 * Answers a request to the stream's path that is not a WebSocket upgrade: {@code 405} (a method
 * other than GET or HEAD), {@code 426} (no upgrade), {@code 400} (a broken upgrade), with
 * {@code detail} for the reader and {@code headers} that the answer must carry. The application
 * renders it as its other errors (the server: an RFC 9457 problem). Implementations are threadsafe.
 */
@FunctionalInterface
public interface ProblemWriter {

    /** Writes the answer of {@code status}. */
    void write(HttpServletResponse response, int status, String detail, Map<String, String> headers) throws IOException;

    /** The container's own error page of {@code status}, with {@code headers}. */
    static ProblemWriter plain() {
        return (response, status, detail, headers) -> {
            headers.forEach(response::setHeader);
            response.sendError(status, detail);
        };
    }
}

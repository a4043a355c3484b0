package dev.retrysafe.servlet.internal;

import dev.retrysafe.idempotency.HeaderField;
import dev.retrysafe.idempotency.StoredResponse;
import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.servlet.ProblemType;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * A complete answer decided by the filter, written to the real response in one go only after the
 * transaction is settled and the connection is closed. Immutable.
 */
sealed interface Answer {

    /** Writes this answer to {@code response}. */
    void writeTo(HttpServletResponse response) throws IOException;

    /** What the operation answered, passed on unchanged (cookies included). */
    record Buffered(int status, List<Map.Entry<String, String>> headers, List<Cookie> cookies, byte[] body)
            implements Answer {
        @Override
        public void writeTo(HttpServletResponse response) throws IOException {
            response.setStatus(status);
            for (Map.Entry<String, String> header : headers) {
                if (header.getKey().equalsIgnoreCase("Content-Type")) {
                    response.setContentType(header.getValue());
                } else {
                    response.addHeader(header.getKey(), header.getValue());
                }
            }
            cookies.forEach(response::addCookie);
            writeBody(response, body);
        }
    }

    /** A stored answer replayed, marked as such. */
    record Replayed(StoredResponse stored) implements Answer {
        @Override
        public void writeTo(HttpServletResponse response) throws IOException {
            response.setStatus(stored.status());
            for (HeaderField header : stored.headers()) {
                if (header.name().equalsIgnoreCase("Content-Type")) {
                    response.setContentType(header.value());
                } else {
                    response.addHeader(header.name(), header.value());
                }
            }
            response.setHeader(IdempotencyFilter.REPLAYED_HEADER, "true");
            writeBody(response, stored.body());
        }
    }

    /** A problem document, with {@code Retry-After: 1} when the key is in use or the database is down. */
    record Problem(ProblemType type, String typeBase, String detail) implements Answer {
        @Override
        public void writeTo(HttpServletResponse response) throws IOException {
            response.setStatus(type.status());
            response.setContentType(ProblemJson.MEDIA_TYPE);
            if (type == ProblemType.IDEMPOTENCY_KEY_IN_USE || type == ProblemType.SERVICE_UNAVAILABLE) {
                response.setHeader("Retry-After", "1");
            }
            writeBody(response, ProblemJson.render(type, typeBase, detail));
        }
    }

    /** A request shed because the instance is overloaded ({@code 503 overloaded}, its problem rendered). */
    record Shed(long retryAfterSeconds, byte[] problem) implements Answer {
        @Override
        public void writeTo(HttpServletResponse response) throws IOException {
            response.setStatus(ProblemType.OVERLOADED.status());
            response.setContentType(ProblemJson.MEDIA_TYPE);
            response.setHeader("Retry-After", Long.toString(retryAfterSeconds));
            writeBody(response, problem);
        }
    }

    private static void writeBody(HttpServletResponse response, byte[] body) throws IOException {
        response.setContentLength(body.length);
        if (body.length > 0) {
            response.getOutputStream().write(body);
        }
    }
}

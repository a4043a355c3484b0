package dev.retrysafe.server.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Renders the errors Jetty answers by itself, before any filter or handler runs (a malformed
 * request line, headers too large, an HTTP version it does not speak, a request that failed
 * outside the application), as problem details instead of Jetty's HTML page. What the client sent
 * wrong is a client error that is not retryable; only a failure of ours is {@code internal-error}.
 */
public final class ProblemErrorHandler extends ErrorHandler {

    /** A handler for the server and the servlet context. */
    public ProblemErrorHandler() {}

    /**
     * Every method gets its problem body. Jetty's default writes a body only for GET, POST and
     * HEAD, so a DELETE, PATCH or PUT to a malformed URI got an empty 400 (found by HttpFuzzTest).
     */
    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        ProblemType type = switch (code) {
            case 404 -> ProblemType.NOT_FOUND;
            case 405 -> ProblemType.METHOD_NOT_ALLOWED;
            case 413 -> ProblemType.REQUEST_TOO_LARGE;
            case 415 -> ProblemType.UNSUPPORTED_MEDIA_TYPE;
            case 414 -> ProblemType.URI_TOO_LONG;
            case 431 -> ProblemType.HEADERS_TOO_LARGE;
            case 503 -> ProblemType.SERVICE_UNAVAILABLE;
            // the parser's answer to HTTP/0.9 or an unknown version: the client's doing, not ours
            case 505 -> ProblemType.HTTP_VERSION_NOT_SUPPORTED;
            // a field-level validation type would mislead here: nothing reached the application
            default -> code >= 500 ? ProblemType.INTERNAL_ERROR : ProblemType.BAD_REQUEST;
        };
        Problem problem = Problem.of(type, message == null || message.isBlank() ? type.title() : message);
        if (code >= 500) {
            // a 5xx reads as "try again later" to a generic client; the same bytes get the same 505
            problem = problem.with("retryable", type != ProblemType.HTTP_VERSION_NOT_SUPPORTED);
        }
        // keep the status Jetty chose (e.g. 431), even where the problem type's default differs
        java.util.Map<String, Object> body = problem.body();
        body.put("status", code);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, Json.PROBLEM_CONTENT_TYPE);
        response.write(true, ByteBuffer.wrap(Json.bytes(body)), callback);
    }
}

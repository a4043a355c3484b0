package dev.retrysafe.server.http;

import dev.retrysafe.servlet.DatabaseOutage;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns whatever escapes a handler into a problem: Javalin's own responses (no route, wrong
 * method, body too large) into their problem types, a database that cannot be reached
 * ({@link DatabaseOutage}) into {@code 503}, and anything else into {@code 500 internal-error}, logged with a reference the client sees.
 * Client input never reaches the last case: handlers validate it first.
 */
public final class ErrorMapping {

    private static final Logger LOG = LoggerFactory.getLogger(ErrorMapping.class);

    private final int maxBodyBytes;

    /** Mapping with the configured body limit (for the 413 detail). */
    public ErrorMapping(int maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    /** For Javalin's {@link HttpResponseException}s. */
    public void httpResponse(HttpResponseException e, Context ctx) {
        Problems.respond(
                ctx,
                switch (e.getStatus()) {
                    case 404 -> Problem.of(ProblemType.NOT_FOUND, "No route " + ctx.method() + " " + ctx.path() + ".");
                    case 405 -> methodNotAllowed(e.getDetails(), ctx);
                    case 413 -> JsonBody.tooLarge(maxBodyBytes);
                    default -> {
                        if (e.getStatus() >= 500) {
                            yield internal(e, ctx);
                        }
                        yield Problem.of(ProblemType.VALIDATION_FAILED, "The request is invalid: " + e.getMessage());
                    }
                });
    }

    /** For every other exception. */
    public void unexpected(Exception e, Context ctx) {
        if (DatabaseOutage.causedBy(e)) {
            LOG.warn("database unavailable for {} {}: {}", ctx.method(), ctx.path(), e.toString());
            Problems.respond(
                    ctx,
                    Problem.of(ProblemType.SERVICE_UNAVAILABLE, "The database is unavailable right now.")
                            .with("retryable", true)
                            .withHeader("Retry-After", "1"));
            return;
        }
        Problems.respond(ctx, internal(e, ctx));
    }

    private static Problem internal(Exception e, Context ctx) {
        String reference = UUID.randomUUID().toString();
        LOG.error("internal error {} on {} {}", reference, ctx.method(), ctx.path(), e);
        return Problem.of(
                        ProblemType.INTERNAL_ERROR,
                        "Something failed inside the server (reference " + reference
                                + "). Nothing was changed; retrying is safe.")
                .with("retryable", true)
                .with("reference", reference);
    }

    private static Problem methodNotAllowed(Map<String, String> details, Context ctx) {
        // Javalin lists the methods the path accepts as the keys or values of the details
        StringBuilder allow = new StringBuilder();
        for (Map.Entry<String, String> d : details.entrySet()) {
            for (String candidate : (d.getKey() + "," + d.getValue()).split("[,\\s\\[\\]]+")) {
                String m = candidate.strip().toUpperCase(Locale.ROOT);
                if (m.matches("GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|QUERY") && allow.indexOf(m) < 0) {
                    allow.append(allow.isEmpty() ? "" : ", ").append(m);
                }
            }
        }
        return Problem.of(
                        ProblemType.METHOD_NOT_ALLOWED,
                        ctx.path() + " does not accept " + ctx.method()
                                + (allow.isEmpty() ? "." : "; it accepts " + allow + "."))
                .withHeader("Allow", allow.toString());
    }
}

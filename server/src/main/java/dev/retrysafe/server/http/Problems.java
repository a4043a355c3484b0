package dev.retrysafe.server.http;

import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;

/** Writes problems as {@code application/problem+json}, from Javalin handlers and from servlet filters. */
public final class Problems {

    private Problems() {}

    /** Answers {@code problem} through Javalin. */
    public static void respond(Context ctx, Problem problem) {
        for (Map.Entry<String, String> h : problem.headers().entrySet()) {
            ctx.header(h.getKey(), h.getValue());
        }
        ctx.status(problem.type().status());
        ctx.contentType(Json.PROBLEM_CONTENT_TYPE);
        ctx.result(Json.bytes(problem.body()));
    }

    /** Answers {@code problem} on a raw servlet response (from a filter, before Javalin runs). */
    public static void respond(HttpServletResponse response, Problem problem) throws IOException {
        for (Map.Entry<String, String> h : problem.headers().entrySet()) {
            response.setHeader(h.getKey(), h.getValue());
        }
        byte[] body = Json.bytes(problem.body());
        response.setStatus(problem.type().status());
        response.setContentType(Json.PROBLEM_CONTENT_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}

package dev.retrysafe.server.http;

import io.javalin.http.Context;

/** Writes JSON success responses. */
public final class Responses {

    private Responses() {}

    /** Answers {@code status} with {@code body} as JSON. */
    public static void json(Context ctx, int status, Object body) {
        ctx.status(status);
        ctx.contentType(Json.CONTENT_TYPE);
        ctx.result(Json.bytes(body));
    }
}

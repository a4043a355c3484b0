package dev.retrysafe.server.http;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;

/** Serves {@code GET /problems/<slug>}: a readable page for each problem type. */
public final class ProblemPages {

    private ProblemPages() {}

    /** The handler for {@code /problems/{slug}}. */
    public static void page(Context ctx) {
        String slug = ctx.pathParam("slug");
        ProblemType.bySlug(slug)
                .ifPresentOrElse(
                        type -> {
                            ctx.contentType("text/html; charset=utf-8");
                            ctx.result(html(type).getBytes(StandardCharsets.UTF_8));
                        },
                        () -> Problems.respond(
                                ctx,
                                Problem.of(ProblemType.NOT_FOUND, "There is no problem type '" + escape(slug) + "'.")));
    }

    /** The handler for {@code /problems}: the list of every problem type. */
    public static void index(Context ctx) {
        StringBuilder items = new StringBuilder();
        for (ProblemType t : ProblemType.values()) {
            items.append("<li><a href=\"")
                    .append(t.uri())
                    .append("\">")
                    .append(t.slug())
                    .append("</a> (")
                    .append(t.status())
                    .append(") ")
                    .append(escape(t.title()))
                    .append("</li>\n");
        }
        ctx.contentType("text/html; charset=utf-8");
        ctx.result(document(
                        "Problem types",
                        "<h1>Problem types</h1>\n<p>Every error of the Retrysafe API is an "
                                + "RFC 9457 problem (<code>application/problem+json</code>) whose <code>type</code> is one of these pages.</p>\n<ul>\n"
                                + items + "</ul>")
                .getBytes(StandardCharsets.UTF_8));
    }

    static String html(ProblemType t) {
        return document(
                t.title(),
                "<h1>" + escape(t.title()) + "</h1>\n"
                        + "<p><code>type: " + t.uri() + "</code> &middot; <code>status: " + t.status() + "</code></p>\n"
                        + "<p>" + t.explanation() + "</p>\n"
                        + "<p>The response body is <code>application/problem+json</code> (RFC 9457) with <code>type</code>, "
                        + "<code>title</code>, <code>status</code> and a <code>detail</code> about this occurrence. "
                        + "<a href=\"/problems\">All problem types</a>.</p>");
    }

    private static String document(String title, String body) {
        return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
                + " - Retrysafe</title></head>\n<body style=\"font-family:sans-serif;max-width:42em;margin:2em auto\">\n"
                + body + "\n</body></html>\n";
    }

    /** {@code s} escaped for HTML text and quoted attribute values. */
    public static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

package dev.retrysafe.server.http;

import io.javalin.http.Context;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code GET /metrics}: the sections of every part of the server (webhook delivery, jobs), one
 * after the other, in the Prometheus text format. Threadsafe.
 */
public final class MetricsRoute {

    private final List<Supplier<String>> sections;

    /** A route rendering {@code sections} in order. */
    public MetricsRoute(List<Supplier<String>> sections) {
        this.sections = List.copyOf(sections);
    }

    /** The handler. */
    public void metrics(Context ctx) {
        StringBuilder out = new StringBuilder(4096);
        for (Supplier<String> section : sections) {
            out.append(section.get());
        }
        ctx.contentType(PrometheusText.CONTENT_TYPE);
        ctx.result(out.toString());
    }
}

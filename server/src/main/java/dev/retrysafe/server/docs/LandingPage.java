package dev.retrysafe.server.docs;

import dev.retrysafe.server.http.Json;
import dev.retrysafe.server.http.ProblemPages;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /}: the start page the banner prints, linking the dashboard, the API docs and saying
 * where the demo account's key is. A browser gets a small HTML page in the dashboard's style; a
 * client whose {@code Accept} prefers {@code application/json} over {@code text/html} gets the same
 * links as a JSON index. Both are made once, when the server starts. Threadsafe.
 */
public final class LandingPage {

    /** Same rules as the dashboard's: its style sheet from this origin, no script at all. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'self'; img-src 'self'; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private static final String TEMPLATE = "landing/index.html";

    private final byte[] html;
    private final byte[] json;

    /**
     * The page of a server whose demo account's key is in {@code demoKeyFile}, or that has no demo
     * account ({@code null}: an external database, whose accounts come from
     * {@code RETRYSAFE_BOOTSTRAP_API_KEYS} or {@code create-account}).
     */
    public LandingPage(@Nullable Path demoKeyFile) {
        this.html = template().replace("{{key}}", keyHtml(demoKeyFile)).getBytes(StandardCharsets.UTF_8);
        Map<String, Object> index = new LinkedHashMap<>();
        index.put("name", "Retrysafe");
        Map<String, String> links = new LinkedHashMap<>();
        links.put("dashboard", "/dashboard");
        links.put("docs", "/docs");
        links.put("openapi", "/openapi.json");
        links.put("problems", "/problems");
        links.put("health", "/health");
        links.put("ready", "/ready");
        links.put("metrics", "/metrics");
        index.put("links", links);
        if (demoKeyFile != null) {
            index.put("demo_api_key_file", demoKeyFile.toString());
        }
        this.json = Json.bytes(index);
    }

    /** {@code GET /}. */
    public void page(Context ctx) {
        ctx.header("Vary", "Accept");
        ctx.header("X-Content-Type-Options", "nosniff");
        if (prefersJson(ctx.header("Accept"))) {
            ctx.contentType(Json.CONTENT_TYPE);
            ctx.result(json);
            return;
        }
        ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.contentType("text/html; charset=utf-8");
        ctx.result(html);
    }

    /**
     * Whether {@code accept} asks for {@code application/json} with a higher quality than
     * {@code text/html}. Wildcards count for neither, so that a client that takes anything
     * ({@code *}{@code /*}, as curl sends) gets the page, like a browser.
     */
    static boolean prefersJson(@Nullable String accept) {
        if (accept == null) {
            return false;
        }
        double json = 0;
        double html = 0;
        for (String range : accept.split(",")) {
            String[] parts = range.split(";");
            String type = parts[0].strip().toLowerCase(Locale.ROOT);
            double q = quality(parts);
            if (type.equals("application/json")) {
                json = Math.max(json, q);
            } else if (type.equals("text/html")) {
                html = Math.max(html, q);
            }
        }
        return json > 0 && json > html;
    }

    private static double quality(String[] parameters) {
        for (int i = 1; i < parameters.length; i++) {
            String p = parameters[i].strip();
            if (p.regionMatches(true, 0, "q=", 0, 2)) {
                try {
                    double q = Double.parseDouble(p.substring(2).strip());
                    return q >= 0 && q <= 1 ? q : 0;
                } catch (NumberFormatException e) {
                    return 0; // an unreadable weight: as if the range were absent
                }
            }
        }
        return 1;
    }

    private static String keyHtml(@Nullable Path demoKeyFile) {
        if (demoKeyFile == null) {
            return "<p>This server keeps its data in an external database and has no demo account. Create an"
                    + " account with <code>./run create-account --name NAME</code> (same database settings as the"
                    + " server), or give keys in <code>RETRYSAFE_BOOTSTRAP_API_KEYS</code>.</p>";
        }
        return "<p>The demo account's key is in <code class=\"mono\" data-testid=\"demo-key-file\">"
                + ProblemPages.escape(demoKeyFile.toString())
                + "</code> on the server's machine (printed at the first start). Send it as"
                + " <code>Authorization: Bearer KEY</code>; <code>./run create-account --name NAME</code> makes"
                + " more accounts.</p>";
    }

    private static String template() {
        try (InputStream in = LandingPage.class.getClassLoader().getResourceAsStream(TEMPLATE)) {
            if (in == null) {
                throw new IllegalStateException(TEMPLATE + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + TEMPLATE, e);
        }
    }
}

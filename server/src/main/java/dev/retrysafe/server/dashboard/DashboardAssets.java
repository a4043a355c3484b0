package dev.retrysafe.server.dashboard;

import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.ProblemType;
import dev.retrysafe.server.http.Problems;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Serves {@code GET /dashboard} (the page) and {@code GET /dashboard/{asset}} (its style sheet and
 * script) from the class path folder {@code dashboard/}. Only the files named here are served, so
 * a path cannot reach any other resource. Every answer carries a Content-Security-Policy that
 * allows scripts, styles, images and API calls from this origin only and nothing inline, so a
 * response snippet that slipped into the page as markup still could not run. Threadsafe.
 */
public final class DashboardAssets {

    /** No inline script or style, no plugins, no framing, no other origin; the API is same-origin. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
            + "frame-ancestors 'none'";

    private static final Map<String, Asset> ASSETS = Map.of(
            "index.html", Asset.load("index.html", "text/html; charset=utf-8"),
            "dashboard.css", Asset.load("dashboard.css", "text/css; charset=utf-8"),
            "dashboard.js", Asset.load("dashboard.js", "text/javascript; charset=utf-8"));

    private DashboardAssets() {}

    /** {@code GET /dashboard}. */
    public static void page(Context ctx) {
        send(ctx, ASSETS.get("index.html"));
    }

    /** {@code GET /dashboard/{asset}}: the style sheet or the script; anything else {@code 404}. */
    public static void asset(Context ctx) {
        String name = ctx.pathParam("asset");
        Asset asset = name.equals("index.html") ? null : ASSETS.get(name);
        if (asset == null) {
            String shown = name.length() > 64 ? name.substring(0, 64) + "..." : name;
            Problems.respond(ctx, Problem.of(ProblemType.NOT_FOUND, "The dashboard has no file '" + shown + "'."));
            return;
        }
        send(ctx, asset);
    }

    private static void send(Context ctx, Asset asset) {
        ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Cross-Origin-Opener-Policy", "same-origin");
        // revalidated on every load: a new server version never runs with an old script
        ctx.header("Cache-Control", "no-cache");
        ctx.status(200);
        ctx.contentType(asset.contentType());
        ctx.result(asset.bytes());
    }

    /** A file of the dashboard, read once. */
    private record Asset(byte[] bytes, String contentType) {

        static Asset load(String name, String contentType) {
            String resource = "/dashboard/" + name;
            try (InputStream in = DashboardAssets.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("resource " + resource + " is missing from the jar");
                }
                return new Asset(in.readAllBytes(), contentType);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read resource " + resource, e);
            }
        }
    }
}

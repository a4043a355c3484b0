package dev.retrysafe.server.docs;

import dev.retrysafe.server.http.Json;
import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.ProblemType;
import dev.retrysafe.server.http.Problems;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The handlers of {@code GET /openapi.json}, {@code GET /docs} and {@code GET /docs/{asset}}. The
 * page and its two files are read once from the class path ({@code docs/}); the page loads only
 * them and {@code /openapi.json}, which its {@code Content-Security-Policy} enforces (no inline
 * script or style, nothing from another origin). Threadsafe.
 */
public final class DocsRoutes {

    /** What the page may load: its own script and style sheet, and this server's JSON. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    /** A file of the page. @param contentType its media type @param bytes its content */
    private record Asset(String contentType, byte[] bytes) {}

    private final byte[] openApi;
    private final Asset page;
    private final Map<String, Asset> assets;

    /** Handlers serving {@code document}. */
    public DocsRoutes(OpenApiDocument document) {
        this.openApi = document.json();
        this.page = new Asset("text/html; charset=utf-8", resource("docs/index.html"));
        this.assets = Map.of(
                "docs.js", new Asset("text/javascript; charset=utf-8", resource("docs/docs.js")),
                "docs.css", new Asset("text/css; charset=utf-8", resource("docs/docs.css")));
    }

    /** {@code GET /openapi.json}. */
    public void openApi(Context ctx) {
        ctx.contentType(Json.CONTENT_TYPE);
        ctx.result(openApi);
    }

    /** {@code GET /docs}. */
    public void page(Context ctx) {
        serve(ctx, page);
    }

    /** {@code GET /docs/{asset}}: {@code docs.js} or {@code docs.css}. */
    public void asset(Context ctx) {
        Asset asset = assets.get(ctx.pathParam("asset"));
        if (asset == null) {
            Problems.respond(ctx, Problem.of(ProblemType.NOT_FOUND, "The documentation has no such file."));
            return;
        }
        serve(ctx, asset);
    }

    private static void serve(Context ctx, Asset asset) {
        ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.contentType(asset.contentType());
        ctx.result(asset.bytes());
    }

    private static byte[] resource(String name) {
        try (InputStream in = DocsRoutes.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not on the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name, e);
        }
    }
}

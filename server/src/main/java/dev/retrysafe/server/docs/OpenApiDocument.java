package dev.retrysafe.server.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.retrysafe.server.http.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The OpenAPI 3.1 document of the server: {@value #SOURCE} from the class path, with one rule
 * applied that the source states instead of repeating it on every response: every response of an
 * operation under {@code /v1} (inline, or the shared one in {@code components/responses} it
 * refers to) carries the rate-limit headers, and every {@code 2xx} response of a {@code POST}
 * under {@code /v1} may carry {@code Idempotent-Replayed}. Immutable and threadsafe.
 */
public final class OpenApiDocument {

    /** Where the source is, on the class path. */
    public static final String SOURCE = "openapi/openapi.yaml";
    /**
     * The headers every answer under {@code /v1} carries while rate limits are enabled, then those
     * of versioned limits (the set's name and docs; deprecation and sunset on a previous set).
     */
    static final List<String> RATE_LIMIT_HEADERS = List.of(
            "RateLimit-Policy",
            "RateLimit",
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Used",
            "X-RateLimit-Reset",
            "X-RateLimit-Resource",
            "X-RateLimit-Policy",
            "X-RateLimit-Policy-Docs",
            "Deprecation",
            "Sunset",
            "Link");

    static final String REPLAYED_HEADER = "Idempotent-Replayed";
    private static final Set<String> METHODS =
            Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
    private static final String SHARED_RESPONSE = "#/components/responses/";

    private final byte[] json;

    private OpenApiDocument(ObjectNode tree) {
        this.json = Json.bytes(tree);
    }

    /** Reads and completes the document; fails if the source is missing or not YAML. */
    public static OpenApiDocument load() {
        try (InputStream in = OpenApiDocument.class.getClassLoader().getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new IllegalStateException(SOURCE + " is not on the class path");
            }
            JsonNode source = new ObjectMapper(new YAMLFactory()).readTree(in);
            if (!(source instanceof ObjectNode document)) {
                throw new IllegalStateException(SOURCE + " is not a YAML mapping");
            }
            addHeaders(document);
            return new OpenApiDocument(document);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + SOURCE, e);
        }
    }

    /** The document as JSON (UTF-8), as {@code GET /openapi.json} answers it. */
    byte[] json() {
        return json;
    }

    private static void addHeaders(ObjectNode document) {
        Set<String> shared = new TreeSet<>();
        for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
            if (!path.getKey().startsWith("/v1/")) {
                continue;
            }
            for (Map.Entry<String, JsonNode> operation : path.getValue().properties()) {
                if (!METHODS.contains(operation.getKey())) {
                    continue;
                }
                boolean post = operation.getKey().equals("post");
                for (Map.Entry<String, JsonNode> response :
                        operation.getValue().path("responses").properties()) {
                    String ref = response.getValue().path("$ref").asText("");
                    if (ref.startsWith(SHARED_RESPONSE)) {
                        shared.add(ref.substring(SHARED_RESPONSE.length()));
                        continue;
                    }
                    ObjectNode inline = (ObjectNode) response.getValue();
                    refer(inline, RATE_LIMIT_HEADERS);
                    if (post && response.getKey().startsWith("2")) {
                        refer(inline, List.of(REPLAYED_HEADER));
                    }
                }
            }
        }
        JsonNode responses = document.path("components").path("responses");
        for (String name : shared) {
            if (!(responses.get(name) instanceof ObjectNode response)) {
                throw new IllegalStateException(SOURCE + ": no response " + SHARED_RESPONSE + name);
            }
            refer(response, RATE_LIMIT_HEADERS);
        }
    }

    /** Adds to {@code response} a reference to each header of {@code components/headers} it does not list yet. */
    private static void refer(ObjectNode response, List<String> headers) {
        ObjectNode listed = response.get("headers") instanceof ObjectNode h ? h : response.putObject("headers");
        for (String name : headers) {
            if (!listed.has(name)) {
                listed.putObject(name).put("$ref", "#/components/headers/" + name);
            }
        }
    }
}

package dev.retrysafe.server.docs;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The operations of an OpenAPI document, with their parameters and references resolved. */
final class Operations {

    static final List<String> METHODS = List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    /** A node of the document with the JSON pointer it was found at (after following {@code $ref}s). */
    record Located(JsonNode node, String pointer) {}

    /**
     * One operation.
     *
     * @param method  upper case, e.g. {@code POST}
     * @param path    as documented, e.g. {@code /v1/payments/{id}}
     * @param node    the operation object
     * @param pointer where it is in the document
     * @param parameters the path item's and the operation's parameters, resolved
     */
    record Operation(String method, String path, JsonNode node, String pointer, List<JsonNode> parameters) {

        /** {@code "GET /v1/payments/{id}"}, as the server's router names its routes. */
        String route() {
            return method + " " + path;
        }

        /** Whether the API key is needed (the document's default unless the operation says {@code security: []}). */
        boolean authenticated() {
            return !node.has("security") || !node.get("security").isEmpty();
        }

        /**
         * Whether the API key may also be left out of the request: one of the operation's
         * security requirements is empty ({@code {}}), as on the WebSocket that takes the key in
         * its first message.
         */
        boolean keyOptional() {
            for (JsonNode requirement : node.path("security")) {
                if (requirement.isEmpty()) {
                    return true;
                }
            }
            return false;
        }

        /** Whether it is a WebSocket: it documents {@code 101 Switching Protocols}. */
        boolean upgrades() {
            return node.path("responses").has("101");
        }
    }

    private Operations() {}

    /** Every operation under {@code paths}, in document order. */
    static List<Operation> of(JsonNode document) {
        List<Operation> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
            List<JsonNode> shared = resolvedList(document, path.getValue().path("parameters"));
            for (String method : METHODS) {
                JsonNode op = path.getValue().get(method);
                if (op != null) {
                    List<JsonNode> params = new ArrayList<>(shared);
                    params.addAll(resolvedList(document, op.path("parameters")));
                    out.add(new Operation(
                            method.toUpperCase(Locale.ROOT),
                            path.getKey(),
                            op,
                            "/paths/" + escape(path.getKey()) + "/" + method,
                            params));
                }
            }
        }
        return out;
    }

    /** {@code node}, or what its {@code $ref} (a local JSON pointer) names, with where that is. */
    static Located resolve(JsonNode document, JsonNode node, String pointer) {
        JsonNode current = node;
        String at = pointer;
        for (int i = 0; i < 10 && current.has("$ref"); i++) {
            String ref = current.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                throw new AssertionError("not a local reference: " + ref + " at " + at);
            }
            at = ref.substring(1);
            current = document.at(at);
            if (current.isMissingNode()) {
                throw new AssertionError("unresolved reference " + ref);
            }
        }
        return new Located(current, at);
    }

    /** A JSON pointer segment for {@code key}. */
    static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    /** The media type of a {@code Content-Type} value, without parameters, in lower case. */
    static String mediaType(String contentType) {
        return contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    }

    private static List<JsonNode> resolvedList(JsonNode document, JsonNode list) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : list) {
            out.add(resolve(document, p, "").node());
        }
        return out;
    }
}

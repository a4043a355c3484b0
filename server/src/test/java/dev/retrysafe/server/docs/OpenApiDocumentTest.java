package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.idempotency.IdempotencyKey;
import dev.retrysafe.idempotency.KeyParse;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.events.EventTypes;
import dev.retrysafe.server.http.IdempotentRoutes;
import dev.retrysafe.server.http.ProblemType;
import dev.retrysafe.testkit.RepositoryRoot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The document {@code GET /openapi.json} serves: a valid OpenAPI 3.1 document by the official
 * schema, every schema in it a JSON Schema 2020-12 that compiles, every reference resolved, the
 * catalogues (problem types, event types, examples) matching the code, and the
 * {@code Idempotency-Key} parameter on exactly the routes where the server's filter takes one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenApiDocumentTest {

    private TestServer server;
    private JsonNode document;

    @BeforeAll
    void start() {
        server = TestServer.h2().start();
        Api.Answer served = new Api(server.baseUri(), null).get("/openapi.json");
        assertThat(served.status()).isEqualTo(200);
        assertThat(served.contentType()).startsWith("application/json");
        document = served.body();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void isAValidOpenApi31DocumentByTheOfficialSchema() {
        assertThat(document.path("openapi").asText()).startsWith("3.1.");
        assertThat(Schemas.openApiErrors(document)).isEmpty();
    }

    @Test
    void theOfficialSchemaRejectsABrokenDocument() {
        // given: the served document with a response that lacks its required description
        ObjectNode broken = document.deepCopy();
        ((ObjectNode) broken.at("/paths/~1health/get/responses/200")).remove("description");
        broken.remove("info");

        // then: the same check fails, so the test above can fail
        assertThat(Schemas.openApiErrors(broken)).hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void everySchemaIsAJsonSchema202012ThatCompiles() {
        Map<String, JsonNode> found = schemas();
        assertThat(found).hasSizeGreaterThan(100);
        Schemas schemas = new Schemas(document);
        List<String> problems = new ArrayList<>();
        found.forEach((pointer, schema) -> {
            Schemas.metaSchemaErrors(schema).forEach(e -> problems.add(pointer + ": " + e));
            try {
                // validating anything makes the validator follow every reference it meets
                schemas.errors(pointer, document.path("info"));
            } catch (RuntimeException e) {
                problems.add(pointer + " does not compile: " + e);
            }
        });
        assertThat(problems).isEmpty();
    }

    @Test
    void theSchemaChecksRejectAnInvalidSchemaAndADanglingReference() throws Exception {
        // given
        JsonNode misspelt = new com.fasterxml.jackson.databind.ObjectMapper().readTree("{\"type\": \"strnig\"}");
        ObjectNode dangling = document.deepCopy();
        ((ObjectNode) dangling.at("/components/schemas/Payment/properties/id"))
                .put("$ref", "#/components/schemas/Nothing");

        // then
        assertThat(Schemas.metaSchemaErrors(misspelt)).isNotEmpty();
        JsonNode payment = new com.fasterxml.jackson.databind.ObjectMapper().readTree("{\"id\": \"pay_1\"}");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(
                        () -> new Schemas(dangling).errors("/components/schemas/Payment", payment)))
                .isNotNull();
    }

    @Test
    void everyReferenceResolves() {
        List<String> refs = new ArrayList<>();
        walk(document, "", (pointer, node) -> {
            if (node.has("$ref") && node.get("$ref").isTextual()) {
                refs.add(node.get("$ref").asText());
            }
        });
        assertThat(refs).hasSizeGreaterThan(200);
        assertThat(refs).allSatisfy(ref -> {
            assertThat(ref).startsWith("#/");
            assertThat(document.at(ref.substring(1)).isMissingNode()).as(ref).isFalse();
        });
    }

    @Test
    void everyExampleIsValidByItsSchema() {
        Schemas schemas = new Schemas(document);
        List<String> invalid = new ArrayList<>();
        int[] checked = {0};
        walk(document, "", (pointer, node) -> {
            // a schema with an example, or a parameter, header or media type with a schema and an example
            String schema = pointer.startsWith("/components/schemas/") ? pointer : pointer + "/schema";
            if (node.has("example") && (schema.equals(pointer) || node.has("schema"))) {
                checked[0]++;
                schemas.errors(schema, node.get("example")).forEach(e -> invalid.add(pointer + ": " + e));
            }
        });
        assertThat(checked[0]).isGreaterThan(40);
        assertThat(invalid).isEmpty();
    }

    @Test
    void everyProblemTypeOfTheCodeIsInTheCatalogueWithItsTitleAndStatus() {
        Map<String, JsonNode> catalogue = new HashMap<>();
        for (JsonNode entry : document.at("/components/schemas/ProblemType/oneOf")) {
            catalogue.put(entry.path("const").asText(), entry);
        }
        assertThat(catalogue.keySet())
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(ProblemType.values())
                        .map(ProblemType::uri)
                        .toList());
        for (ProblemType type : ProblemType.values()) {
            JsonNode entry = catalogue.get(type.uri());
            assertThat(entry.path("title").asText()).as(type.uri()).isEqualTo(type.title());
            assertThat(entry.path("description").asText()).as(type.uri()).startsWith(type.status() + ".");
        }
    }

    @Test
    void everyProblemTypeAResponseNamesIsAnsweredWithThatResponsesStatus() {
        Map<String, Integer> statusOf = new HashMap<>();
        for (ProblemType type : ProblemType.values()) {
            statusOf.put(type.uri(), type.status());
        }
        List<String> mismatches = new ArrayList<>();
        int[] checked = {0};
        for (Operations.Operation op : Operations.of(document)) {
            op.node().path("responses").properties().forEach(response -> {
                if (!response.getKey().matches("\\d{3}")) {
                    return;
                }
                JsonNode type = Operations.resolve(document, response.getValue(), "")
                        .node()
                        .at("/content/application~1problem+json/schema/properties/type");
                List<String> named = new ArrayList<>();
                type.path("enum").forEach(t -> named.add(t.asText()));
                if (type.has("const")) {
                    named.add(type.get("const").asText());
                }
                for (String uri : named) {
                    checked[0]++;
                    if (!Integer.valueOf(response.getKey()).equals(statusOf.get(uri))) {
                        mismatches.add(op.route() + " " + response.getKey() + " names " + uri + " (" + statusOf.get(uri)
                                + ")");
                    }
                }
            });
        }
        assertThat(checked[0]).isGreaterThan(200);
        assertThat(mismatches).isEmpty();
    }

    @Test
    void theWebhooksSectionDescribesEveryEventTypeTheServerEmitsWithItsSignatureHeaders() {
        List<String> documented = new ArrayList<>();
        document.path("webhooks").fieldNames().forEachRemaining(documented::add);
        assertThat(documented).containsExactlyInAnyOrderElementsOf(EventTypes.ALL);
        for (String type : documented) {
            JsonNode post = document.path("webhooks").path(type).path("post");
            JsonNode payload = Operations.resolve(
                            document, post.at("/requestBody/content/application~1json/schema"), "")
                    .node();
            assertThat(payload.at("/properties/type/const").asText()).as(type).isEqualTo(type);
            assertThat(payload.path("required"))
                    .extracting(JsonNode::asText)
                    .containsExactlyInAnyOrder("id", "type", "timestamp", "data");
            Set<String> headers = new HashSet<>();
            for (JsonNode p : post.path("parameters")) {
                JsonNode param = Operations.resolve(document, p, "").node();
                assertThat(param.path("in").asText()).isEqualTo("header");
                assertThat(param.path("required").asBoolean()).isTrue();
                headers.add(param.path("name").asText());
            }
            assertThat(headers)
                    .as(type)
                    .containsExactlyInAnyOrder("webhook-id", "webhook-timestamp", "webhook-signature");
        }
    }

    @Test
    void everyPathAndQueryParameterAndEveryRequestBodyHasAnExample() {
        List<String> missing = new ArrayList<>();
        for (Operations.Operation op : Operations.of(document)) {
            for (JsonNode p : op.parameters()) {
                String in = p.path("in").asText();
                if ((in.equals("path") || in.equals("query")) && !p.has("example")) {
                    missing.add(op.route() + " parameter " + p.path("name").asText());
                }
            }
            op.node().path("requestBody").path("content").properties().forEach(media -> {
                if (!media.getValue().has("example")) {
                    missing.add(op.route() + " body " + media.getKey());
                }
            });
        }
        assertThat(missing).isEmpty();
    }

    @Test
    void everyAnswerUnderV1CarriesTheRateLimitHeadersAndEveryPostSuccessTheReplayHeader() {
        for (Operations.Operation op : Operations.of(document)) {
            if (!op.path().startsWith("/v1/")) {
                continue;
            }
            op.node().path("responses").properties().forEach(response -> {
                JsonNode headers = Operations.resolve(document, response.getValue(), "")
                        .node()
                        .path("headers");
                for (String name : OpenApiDocument.RATE_LIMIT_HEADERS) {
                    assertThat(headers.has(name))
                            .as(op.route() + " " + response.getKey() + " " + name)
                            .isTrue();
                }
                if (op.method().equals("POST") && response.getKey().startsWith("2")) {
                    assertThat(headers.has(OpenApiDocument.REPLAYED_HEADER))
                            .as(op.route())
                            .isTrue();
                }
            });
        }
    }

    @Test
    void theIdempotencyKeySchemaTakesExactlyTheHeaderValuesTheServerTakes() {
        JsonNode key = document.at("/components/schemas/IdempotencyKeyValue");
        assertThat(key.at("/anyOf/0/maxLength").asInt())
                .as("the bare form's maxLength is the documented key length")
                .isEqualTo(IdempotencyKey.MAX_LENGTH);
        assertThat(key.path("description").asText()).contains("255", "257", "512");
        for (String parameter : List.of("IdempotencyKey", "IdempotencyKeyRequired")) {
            assertThat(document.at("/components/parameters/" + parameter + "/schema/$ref")
                            .asText())
                    .isEqualTo("#/components/schemas/IdempotencyKeyValue");
        }
        Schemas schemas = new Schemas(document);
        List<String> values = new ArrayList<>(List.of(
                "x".repeat(255),
                "x".repeat(256),
                "\"" + "x".repeat(255) + "\"",
                "\"" + "x".repeat(256) + "\"",
                "\"" + "\\\"".repeat(255) + "\"",
                "\"" + "\\\\".repeat(256) + "\"",
                "\"\"",
                "\"abc",
                "\"a\\qb\"",
                "\"a\" b",
                "a\"b",
                "caf\u00e9",
                "8e03978e-40d5-43e8-bc93-6894a57f9324"));
        dev.retrysafe.testkit.Fuzz fuzz = new dev.retrysafe.testkit.Fuzz(257);
        for (int i = 0; i < 2000; i++) {
            String v = fuzz.headerValue(fuzz.chance(0.1) ? 300 : 20);
            values.add(fuzz.chance(0.3) ? "\"" + v + "\"" : v);
        }
        List<String> disagreements = new ArrayList<>();
        for (String value : values) {
            if (value.isEmpty()) {
                continue; // no header at all
            }
            boolean documented = schemas.errors(
                            "/components/schemas/IdempotencyKeyValue",
                            com.fasterxml.jackson.databind.node.TextNode.valueOf(value))
                    .isEmpty();
            boolean taken = IdempotencyKey.parse(value) instanceof KeyParse.Valid;
            if (documented != taken) {
                disagreements.add((taken ? "taken, not documented: " : "documented, not taken: ") + value.length()
                        + " chars: " + value);
            }
        }
        assertThat(disagreements).isEmpty();
    }

    @Test
    void everyPostUnderV1DocumentsTheIdempotencyKeyAsTheServersFilterTakesIt() {
        // the filter's routes come from IdempotentRoutes; so does what this test expects
        List<String> mismatches = new ArrayList<>();
        Set<String> required = new HashSet<>();
        int posts = 0;
        for (Operations.Operation op : Operations.of(document)) {
            if (!op.path().startsWith("/v1/")) {
                continue;
            }
            List<JsonNode> keys = op.parameters().stream()
                    .filter(p -> p.path("in").asText().equals("header")
                            && p.path("name").asText().equals("Idempotency-Key"))
                    .toList();
            IdempotentRoutes.KeyUse documented = keys.isEmpty()
                    ? IdempotentRoutes.KeyUse.IGNORED
                    : keys.getFirst().path("required").asBoolean()
                            ? IdempotentRoutes.KeyUse.REQUIRED
                            : IdempotentRoutes.KeyUse.OPTIONAL;
            IdempotentRoutes.KeyUse taken = IdempotentRoutes.keyUse(op.method(), op.path());
            if (keys.size() > 1 || documented != taken) {
                mismatches.add(op.route() + ": the document says " + documented + " (" + keys.size()
                        + " parameters), the server's filter " + taken);
            }
            posts += op.method().equals("POST") ? 1 : 0;
            if (documented == IdempotentRoutes.KeyUse.REQUIRED) {
                required.add(op.route());
            }
        }
        assertThat(posts).as("POST operations under /v1").isGreaterThanOrEqualTo(8);
        assertThat(mismatches).isEmpty();
        assertThat(required)
                .as("routes documented with a required key")
                .containsExactlyInAnyOrderElementsOf(IdempotentRoutes.KEY_REQUIRED);
    }

    @Test
    void everyDocumentOfTheRepositoryTheDescriptionsNameExists() throws Exception {
        Matcher named = Pattern.compile("docs/[A-Za-z0-9_-]+\\.md").matcher(document.toString());
        Set<String> documents = new HashSet<>();
        while (named.find()) {
            documents.add(named.group());
        }
        assertThat(documents).as("the stream's protocol is named").contains("docs/live-events.md");
        Path root = RepositoryRoot.find();
        assertThat(documents)
                .allSatisfy(doc -> assertThat(root.resolve(doc)).as(doc).isRegularFile());
    }

    /** Every schema of the document by its JSON pointer: the named ones and those of parameters, headers and bodies. */
    private Map<String, JsonNode> schemas() {
        Map<String, JsonNode> out = new HashMap<>();
        document.at("/components/schemas")
                .properties()
                .forEach(e -> out.put("/components/schemas/" + Operations.escape(e.getKey()), e.getValue()));
        walk(document, "", (pointer, node) -> {
            if (!pointer.startsWith("/components/schemas/") && node.has("schema")) {
                out.put(pointer + "/schema", node.get("schema"));
            }
        });
        return out;
    }

    /** Calls {@code visit} with every object of {@code node} (itself included) and its pointer. */
    private static void walk(JsonNode node, String pointer, BiConsumer<String, JsonNode> visit) {
        if (node.isObject()) {
            visit.accept(pointer, node);
            node.properties().forEach(e -> walk(e.getValue(), pointer + "/" + Operations.escape(e.getKey()), visit));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), pointer + "/" + i, visit);
            }
        }
    }
}

package dev.retrysafe.server.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * JSON Schema 2020-12 validation (networknt json-schema-validator) against the schemas of one
 * OpenAPI document, and of the document against the official OpenAPI 3.1 schema. Nothing is ever
 * fetched: the 2020-12 meta-schemas ship with the validator, the OpenAPI schema is a test
 * resource, and the document is registered under a made-up id. Threadsafe.
 */
final class Schemas {

    /** The id the document is registered under; its {@code #/components/...} references resolve inside it. */
    static final String DOCUMENT_ID = "https://retrysafe.invalid/openapi.json";
    /** The official schema of OpenAPI 3.1 documents (see resources/openapi/README.md). */
    static final String OPENAPI_SCHEMA = "openapi/oas-3.1-schema-2025-09-15.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final SchemaRegistry registry;
    private final Map<String, Schema> compiled = new ConcurrentHashMap<>();

    /** Schemas of {@code document}. */
    Schemas(JsonNode document) {
        String text = document.toString();
        this.registry = SchemaRegistry.withDefaultDialect(
                SpecificationVersion.DRAFT_2020_12,
                b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder()
                                .formatAssertionsEnabled(true)
                                .preloadSchema(true)
                                .build())
                        .schemaLoader(loader -> loader.fetchRemoteResources(false))
                        .schemas(Map.of(DOCUMENT_ID, text)));
    }

    /** The schema at JSON pointer {@code pointer} of the document, compiled (once). */
    Schema at(String pointer) {
        return compiled.computeIfAbsent(pointer, p -> registry.getSchema(SchemaLocation.of(DOCUMENT_ID + "#" + p)));
    }

    /** What is wrong with {@code instance} under the schema at {@code pointer}; empty when it is valid. */
    List<String> errors(String pointer, JsonNode instance) {
        return messages(at(pointer).validate(instance));
    }

    /** What is wrong with {@code document} as an OpenAPI 3.1 document, by the official schema. */
    static List<String> openApiErrors(JsonNode document) {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(
                SpecificationVersion.DRAFT_2020_12, b -> b.schemaLoader(loader -> loader.fetchRemoteResources(false)));
        return messages(registry.getSchema(resource(OPENAPI_SCHEMA)).validate(document));
    }

    /** What is wrong with {@code schema} as a JSON Schema 2020-12 (by the meta-schema). */
    static List<String> metaSchemaErrors(JsonNode schema) {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(
                SpecificationVersion.DRAFT_2020_12, b -> b.schemaLoader(loader -> loader.fetchRemoteResources(false)));
        return messages(registry.getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_2020_12.getDialectId()))
                .validate(schema));
    }

    static JsonNode resource(String name) {
        try (InputStream in = Schemas.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not on the test class path");
            }
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> messages(List<Error> errors) {
        return errors.stream()
                .map(e -> e.getInstanceLocation() + ": " + e.getMessage())
                .toList();
    }
}

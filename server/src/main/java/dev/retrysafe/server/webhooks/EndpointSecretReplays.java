package dev.retrysafe.server.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.idempotency.StoredResponse;
import dev.retrysafe.server.http.Json;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.servlet.StoredAnswerTransform;
import dev.retrysafe.webhooks.WebhookSecret;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Keeps endpoint secrets out of the idempotency store. The answers of
 * {@code POST /v1/webhook_endpoints} and {@code POST /v1/webhook_endpoints/{id}/rotate_secret}
 * are stored with {@code "secret": null}; a replay carries the endpoint's current secret, the one
 * that signs now (during a rotation's grace period the new one, never the one it replaced), or
 * {@code null} once the endpoint is deleted. Every other member is replayed as stored. Threadsafe.
 */
public final class EndpointSecretReplays implements StoredAnswerTransform {

    private static final String SECRET = "secret";

    private final WebhookEndpoints endpoints;

    private EndpointSecretReplays(WebhookEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    /** {@code builder} with this transform on the two routes that answer a secret; {@code endpoints} reads it. */
    public static IdempotencyFilter.Builder configure(IdempotencyFilter.Builder builder, WebhookEndpoints endpoints) {
        EndpointSecretReplays transform = new EndpointSecretReplays(endpoints);
        return builder.storedAnswerTransform("POST", "/v1/webhook_endpoints", transform)
                .storedAnswerTransform("POST", "/v1/webhook_endpoints/{id}/rotate_secret", transform);
    }

    /** The answer with its {@code secret} blanked; an answer without one (a problem) unchanged. */
    @Override
    public StoredResponse toStored(HttpServletRequest request, StoredResponse answer) {
        ObjectNode body = withSecret(answer);
        return body == null ? answer : answered(answer, body.putNull(SECRET));
    }

    /** The stored answer with the endpoint's current {@code secret}, or {@code null} if it is gone. */
    @Override
    public StoredResponse toReplay(HttpServletRequest request, StoredResponse stored) {
        ObjectNode body = withSecret(stored);
        String account = RequestAccount.idOf(request);
        if (body == null || account == null || !body.path("id").isTextual()) {
            return stored;
        }
        // also overwrites a secret stored in the clear before this transform existed
        String current = endpoints
                .secret(account, body.get("id").asText())
                .map(WebhookSecret::encoded)
                .orElse(null);
        return answered(stored, body.put(SECRET, current));
    }

    /** The body as a JSON object if it has a {@code secret} member, else {@code null}. */
    private static @Nullable ObjectNode withSecret(StoredResponse answer) {
        try {
            JsonNode body = Json.MAPPER.readTree(answer.body());
            return body instanceof ObjectNode object && object.has(SECRET) ? object : null;
        } catch (IOException notJson) {
            return null;
        }
    }

    private static StoredResponse answered(StoredResponse answer, ObjectNode body) {
        return new StoredResponse(answer.status(), answer.headers(), Json.bytes(body));
    }
}

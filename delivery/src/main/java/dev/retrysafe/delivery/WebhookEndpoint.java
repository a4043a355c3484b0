package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.DeliveryChecks;
import java.net.URI;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A webhook endpoint as stored, without its secret (see {@link WebhookEndpoints#secret}).
 * Immutable and threadsafe.
 *
 * @param id                      {@code we_...}
 * @param accountId               the owning account
 * @param url                     where deliveries are POSTed
 * @param description             free text, possibly empty
 * @param eventTypes              subscribed {@link EventTypePatterns}; {@code *} means every type
 * @param enabled                 whether deliveries are made and sent
 * @param disabledReason          why it is disabled, when it is
 * @param createdAt               creation time
 * @param updatedAt               time of the last change by its owner or by the dispatcher
 * @param failingSince            start of the current streak of failed attempts, if any
 * @param previousSecretExpiresAt while a rotation's grace period runs: when the old secret stops signing
 * @param rateLimit               most attempts per second to it (1 to {@value WebhookEndpoints#MAX_RATE_LIMIT}),
 *                                {@code null} for no limit
 * @param pausedAt                when it was paused ({@link WebhookEndpoints#pause}), {@code null} if it is not:
 *                                while paused nothing is attempted and nothing fails; what waits goes on resume
 * @param ordered                 whether the events of one ordering key reach it one at a time, in commit order
 *                                (docs/webhooks.md)
 * @param headerNames             the names of its custom headers (their values are never shown)
 */
public record WebhookEndpoint(
        String id,
        String accountId,
        URI url,
        String description,
        Set<String> eventTypes,
        boolean enabled,
        @Nullable DisabledReason disabledReason,
        Instant createdAt,
        Instant updatedAt,
        @Nullable Instant failingSince,
        @Nullable Instant previousSecretExpiresAt,
        @Nullable Integer rateLimit,
        @Nullable Instant pausedAt,
        boolean ordered,
        Set<String> headerNames) {

    /** Whether it is paused: deliveries to it are held until it is resumed. */
    public boolean paused() {
        return pausedAt != null;
    }

    /** Checks presence and the rate, and copies the types and header names. */
    public WebhookEndpoint {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(accountId, "accountId");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(description, "description");
        eventTypes = Set.copyOf(eventTypes);
        headerNames = Set.copyOf(headerNames);
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        if (rateLimit != null) {
            DeliveryChecks.rateLimit(rateLimit);
        }
        if (enabled != (disabledReason == null)) {
            throw new IllegalArgumentException("disabledReason goes with a disabled endpoint only: enabled=" + enabled
                    + ", disabledReason=" + disabledReason);
        }
    }

    /** An endpoint that is neither paused nor ordered, without custom headers. */
    public WebhookEndpoint(
            String id,
            String accountId,
            URI url,
            String description,
            Set<String> eventTypes,
            boolean enabled,
            @Nullable DisabledReason disabledReason,
            Instant createdAt,
            Instant updatedAt,
            @Nullable Instant failingSince,
            @Nullable Instant previousSecretExpiresAt,
            @Nullable Integer rateLimit) {
        this(
                id,
                accountId,
                url,
                description,
                eventTypes,
                enabled,
                disabledReason,
                createdAt,
                updatedAt,
                failingSince,
                previousSecretExpiresAt,
                rateLimit,
                null,
                false,
                Set.of());
    }
}

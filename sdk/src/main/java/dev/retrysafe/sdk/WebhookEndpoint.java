package dev.retrysafe.sdk;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A registered webhook endpoint (its secret is only in {@link CreatedWebhookEndpoint}).
 * Immutable and threadsafe.
 *
 * @param id {@code we_...}
 * @param url where events are delivered
 * @param description free text, or {@code null}
 * @param eventTypes the event types delivered there, such as {@code payment.succeeded}, or {@code *}
 * @param enabled whether deliveries are made
 * @param disabledReason why it is disabled ({@code manual}, {@code failing}, {@code gone}), or
 *     {@code null} while enabled
 * @param rateLimit at most this many attempts per second to it, or {@code null} for no limit
 * @param createdAt when it was registered
 * @param updatedAt when it last changed
 * @param failingSince since when every attempt to it failed, or {@code null}
 * @param previousSecretExpiresAt until when the secret before the last rotation still signs, or
 *     {@code null} outside a rotation's grace period
 * @param pausedAt when it was paused ({@link RetrysafeClient#pauseWebhookEndpoint}), or {@code null}
 *     if it is not: its deliveries wait until it is resumed
 * @param ordered whether the events of one ordering key (a payment and its refunds) reach it one at
 *     a time, in commit order
 * @param headerNames the names of its custom headers, sorted (the API never shows their values:
 *     they were sent with {@link WebhookHeaders})
 */
public record WebhookEndpoint(
        String id,
        String url,
        @Nullable String description,
        List<String> eventTypes,
        boolean enabled,
        @Nullable String disabledReason,
        @Nullable Integer rateLimit,
        Instant createdAt,
        Instant updatedAt,
        @Nullable Instant failingSince,
        @Nullable Instant previousSecretExpiresAt,
        @Nullable Instant pausedAt,
        boolean ordered,
        List<String> headerNames) {

    /** An endpoint without custom headers (as servers before custom headers show). */
    public WebhookEndpoint(
            String id,
            String url,
            @Nullable String description,
            List<String> eventTypes,
            boolean enabled,
            @Nullable String disabledReason,
            @Nullable Integer rateLimit,
            Instant createdAt,
            Instant updatedAt,
            @Nullable Instant failingSince,
            @Nullable Instant previousSecretExpiresAt,
            @Nullable Instant pausedAt,
            boolean ordered) {
        this(
                id,
                url,
                description,
                eventTypes,
                enabled,
                disabledReason,
                rateLimit,
                createdAt,
                updatedAt,
                failingSince,
                previousSecretExpiresAt,
                pausedAt,
                ordered,
                List.of());
    }

    /** An endpoint that is neither paused nor ordered (as servers before pausing and ordering show). */
    public WebhookEndpoint(
            String id,
            String url,
            @Nullable String description,
            List<String> eventTypes,
            boolean enabled,
            @Nullable String disabledReason,
            @Nullable Integer rateLimit,
            Instant createdAt,
            Instant updatedAt,
            @Nullable Instant failingSince,
            @Nullable Instant previousSecretExpiresAt) {
        this(
                id,
                url,
                description,
                eventTypes,
                enabled,
                disabledReason,
                rateLimit,
                createdAt,
                updatedAt,
                failingSince,
                previousSecretExpiresAt,
                null,
                false,
                List.of());
    }

    /** Whether it is paused. */
    public boolean paused() {
        return pausedAt != null;
    }

    /**
     * {@code enabled}, {@code paused} or {@code disabled}, as the API's {@code status} says
     * (disabled outranks paused).
     */
    public String status() {
        return !enabled ? "disabled" : paused() ? "paused" : "enabled";
    }

    /** Copies the event types and header names. */
    public WebhookEndpoint {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(url, "url");
        eventTypes = List.copyOf(eventTypes);
        headerNames = List.copyOf(headerNames);
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
    }
}

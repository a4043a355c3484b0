package dev.retrysafe.sdk;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A change to a webhook endpoint ({@code PATCH /v1/webhook_endpoints/{id}}): only the members set
 * on the builder are sent, and only they change. Immutable and threadsafe.
 *
 * <pre>{@code
 * api.updateWebhookEndpoint(id, WebhookEndpointUpdate.builder().eventTypes(List.of("*")).rateLimit(20).build());
 * api.updateWebhookEndpoint(id, WebhookEndpointUpdate.builder().enabled(false).build()); // pending deliveries fail
 * api.updateWebhookEndpoint(id, WebhookEndpointUpdate.builder().headers(Map.of("X-Api-Key", newKey)).build());
 * }</pre>
 *
 * <p>{@link #toString()} shows the custom headers' names, never their values.
 */
public final class WebhookEndpointUpdate {

    private final Map<String, @Nullable Object> members;

    private WebhookEndpointUpdate(Map<String, @Nullable Object> members) {
        this.members = Collections.unmodifiableMap(new LinkedHashMap<>(members));
    }

    /** A builder of a change. */
    public static Builder builder() {
        return new Builder();
    }

    /** The JSON members the request sends, in the order they were set. */
    public Map<String, @Nullable Object> members() {
        return members;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof WebhookEndpointUpdate other && members.equals(other.members);
    }

    @Override
    public int hashCode() {
        return members.hashCode();
    }

    @Override
    public String toString() {
        return "WebhookEndpointUpdate" + members; // headers show as WebhookHeaders[name=(hidden)]
    }

    /** Builds a {@link WebhookEndpointUpdate}. Not threadsafe. */
    public static final class Builder {
        private final Map<String, @Nullable Object> members = new LinkedHashMap<>();

        private Builder() {}

        /** A new URL (it passes the server's address checks again). */
        public Builder url(String url) {
            members.put("url", Objects.requireNonNull(url, "url"));
            return this;
        }

        /** The event types to deliver from now on, or {@code List.of("*")}. */
        public Builder eventTypes(List<String> eventTypes) {
            List<String> copy = List.copyOf(eventTypes);
            if (copy.isEmpty()) {
                throw new IllegalArgumentException("eventTypes must not be empty");
            }
            members.put("event_types", copy);
            return this;
        }

        /** A new description. */
        public Builder description(String description) {
            members.put("description", Objects.requireNonNull(description, "description"));
            return this;
        }

        /** Enables the endpoint, or disables it ({@code false}: its pending deliveries fail). */
        public Builder enabled(boolean enabled) {
            members.put("enabled", enabled);
            return this;
        }

        /**
         * Orders the events of each ordering key (a payment and its refunds) from now on, or stops
         * ({@code false}: what waited for its turn is sent at once).
         */
        public Builder ordered(boolean ordered) {
            members.put("ordered", ordered);
            return this;
        }

        /**
         * Replaces the endpoint's custom headers with {@code headers}, name to value (an empty map
         * removes them); see {@link WebhookHeaders#of} for what is checked. Left unset, they stay.
         */
        public Builder headers(Map<String, String> headers) {
            return headers(WebhookHeaders.of(headers));
        }

        /**
         * Replaces the endpoint's custom headers with {@code headers} ({@link WebhookHeaders#none()}
         * removes them). Left unset, they stay.
         */
        public Builder headers(WebhookHeaders headers) {
            members.put("headers", Objects.requireNonNull(headers, "headers"));
            return this;
        }

        /**
         * At most {@code perSecond} attempts per second to the endpoint, or {@code null} to remove
         * the limit.
         */
        public Builder rateLimit(@Nullable Integer perSecond) {
            if (perSecond != null && perSecond < 1) {
                throw new IllegalArgumentException("rateLimit must be positive or null, was " + perSecond);
            }
            members.put("rate_limit", perSecond);
            return this;
        }

        /**
         * The change.
         *
         * @throws IllegalStateException when nothing was set
         */
        public WebhookEndpointUpdate build() {
            if (members.isEmpty()) {
                throw new IllegalStateException("a WebhookEndpointUpdate changes at least one member");
            }
            return new WebhookEndpointUpdate(members);
        }
    }
}

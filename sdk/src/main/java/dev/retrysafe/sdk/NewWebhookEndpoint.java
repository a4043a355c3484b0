package dev.retrysafe.sdk;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A webhook endpoint to register ({@code POST /v1/webhook_endpoints}): the URL and event types,
 * and the optional members set on the builder. Immutable and threadsafe; {@link #toString()} shows
 * the custom headers' names, never their values.
 *
 * <pre>{@code
 * CreatedWebhookEndpoint created = api.createWebhookEndpoint(NewWebhookEndpoint.builder(url, List.of("payment.*"))
 *         .ordered(true)
 *         .headers(Map.of("X-Api-Key", receiverKey))
 *         .build());
 * }</pre>
 */
public final class NewWebhookEndpoint {

    private final Map<String, @Nullable Object> members;

    private NewWebhookEndpoint(Map<String, @Nullable Object> members) {
        this.members = Collections.unmodifiableMap(new LinkedHashMap<>(members));
    }

    /**
     * A builder of an endpoint delivering {@code eventTypes} to {@code url}.
     *
     * @param url where to deliver events (https, a public address)
     * @param eventTypes the event types, prefixes such as {@code payment.*}, or {@code List.of("*")}
     */
    public static Builder builder(String url, List<String> eventTypes) {
        return new Builder(url, eventTypes);
    }

    /** The JSON members the request sends: {@code url}, {@code event_types}, then the ones set, in that order. */
    public Map<String, @Nullable Object> members() {
        return members;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof NewWebhookEndpoint other && members.equals(other.members);
    }

    @Override
    public int hashCode() {
        return members.hashCode();
    }

    @Override
    public String toString() {
        return "NewWebhookEndpoint" + members; // headers show as WebhookHeaders[name=(hidden)]
    }

    /** Builds a {@link NewWebhookEndpoint}. Not threadsafe. */
    public static final class Builder {
        private final Map<String, @Nullable Object> members = new LinkedHashMap<>();

        private Builder(String url, List<String> eventTypes) {
            members.put("url", Objects.requireNonNull(url, "url"));
            List<String> copy = List.copyOf(eventTypes);
            if (copy.isEmpty()) {
                throw new IllegalArgumentException("eventTypes must not be empty");
            }
            members.put("event_types", copy);
        }

        /** Free text about the endpoint. */
        public Builder description(String description) {
            members.put("description", Objects.requireNonNull(description, "description"));
            return this;
        }

        /** At most {@code perSecond} attempts per second to the endpoint (none by default). */
        public Builder rateLimit(int perSecond) {
            if (perSecond < 1) {
                throw new IllegalArgumentException("rateLimit must be positive, was " + perSecond);
            }
            members.put("rate_limit", perSecond);
            return this;
        }

        /**
         * Whether the events of each ordering key (a payment and its refunds) reach the endpoint one
         * at a time, in commit order ({@code false} by default).
         */
        public Builder ordered(boolean ordered) {
            members.put("ordered", ordered);
            return this;
        }

        /**
         * Headers every attempt carries, name to value; see {@link WebhookHeaders#of} for what is
         * checked. The API shows only their names afterwards.
         */
        public Builder headers(Map<String, String> headers) {
            return headers(WebhookHeaders.of(headers));
        }

        /** Headers every attempt carries; the API shows only their names afterwards. */
        public Builder headers(WebhookHeaders headers) {
            members.put("headers", Objects.requireNonNull(headers, "headers"));
            return this;
        }

        /** The endpoint to register. */
        public NewWebhookEndpoint build() {
            return new NewWebhookEndpoint(members);
        }
    }
}

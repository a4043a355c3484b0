package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.CustomHeaders;
import dev.retrysafe.delivery.internal.DeliveryChecks;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A partial change of a webhook endpoint ({@code PATCH}): {@code null} fields stay as they are.
 * Immutable and threadsafe.
 *
 * @param url             the new URL (the SSRF guard must have accepted it)
 * @param eventTypes      the new subscriptions, replacing the old ones
 * @param description     the new description
 * @param enabled         {@code true} enables (as {@link WebhookEndpoints#enable}), {@code false}
 *                        disables with reason {@link DisabledReason#MANUAL}
 * @param rateLimit       the new most attempts per second, 1 to {@value WebhookEndpoints#MAX_RATE_LIMIT}
 * @param removeRateLimit {@code true} removes the rate limit (then {@code rateLimit} must be {@code null})
 * @param ordered         {@code true} orders the events of each ordering key from now on (deliveries
 *                        made before stay unordered); {@code false} stops it and sends at once the
 *                        deliveries that waited for their turn
 * @param headers         the new custom headers, replacing the whole set (an empty map removes
 *                        them all; see {@link NewEndpoint#headers}); never logged (toString names
 *                        them only)
 */
public record EndpointUpdate(
        @Nullable URI url,
        @Nullable Set<String> eventTypes,
        @Nullable String description,
        @Nullable Boolean enabled,
        @Nullable Integer rateLimit,
        boolean removeRateLimit,
        @Nullable Boolean ordered,
        @Nullable Map<String, String> headers) {

    /** Checks the fields that are given. */
    public EndpointUpdate {
        if (url != null) {
            DeliveryChecks.url(url);
        }
        if (eventTypes != null) {
            eventTypes = DeliveryChecks.eventTypes(eventTypes);
        }
        if (description != null) {
            DeliveryChecks.description(description);
        }
        if (rateLimit != null) {
            DeliveryChecks.rateLimit(rateLimit);
            if (removeRateLimit) {
                throw new IllegalArgumentException(
                        "rateLimit (" + rateLimit + ") and removeRateLimit contradict each other: give one of them");
            }
        }
        if (headers != null) {
            headers = CustomHeaders.check("headers", headers);
        }
    }

    /** An update that leaves the ordering and the custom headers as they are. */
    public EndpointUpdate(
            @Nullable URI url,
            @Nullable Set<String> eventTypes,
            @Nullable String description,
            @Nullable Boolean enabled,
            @Nullable Integer rateLimit,
            boolean removeRateLimit) {
        this(url, eventTypes, description, enabled, rateLimit, removeRateLimit, null, null);
    }

    /** Names the custom headers, never their values. */
    @Override
    public String toString() {
        return "EndpointUpdate[url=" + url + ", eventTypes=" + eventTypes + ", description=" + description
                + ", enabled=" + enabled + ", rateLimit=" + rateLimit + ", removeRateLimit=" + removeRateLimit
                + ", ordered=" + ordered + ", headers=" + (headers == null ? null : headers.keySet()) + "]";
    }

    /** An update that leaves the rate limit as it is. */
    public EndpointUpdate(
            @Nullable URI url,
            @Nullable Set<String> eventTypes,
            @Nullable String description,
            @Nullable Boolean enabled) {
        this(url, eventTypes, description, enabled, null, false, null, null);
    }

    /** A builder of an update that changes nothing until told. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds an {@link EndpointUpdate}. Not threadsafe. */
    public static final class Builder {
        private @Nullable URI url;
        private @Nullable Set<String> eventTypes;
        private @Nullable String description;
        private @Nullable Boolean enabled;
        private @Nullable Integer rateLimit;
        private boolean removeRateLimit;
        private @Nullable Boolean ordered;
        private @Nullable Map<String, String> headers;

        private Builder() {}

        /** Changes the URL. */
        public Builder url(URI url) {
            this.url = DeliveryChecks.url(url);
            return this;
        }

        /** Replaces the subscriptions. */
        public Builder eventTypes(Set<String> eventTypes) {
            this.eventTypes = DeliveryChecks.eventTypes(eventTypes);
            return this;
        }

        /** Changes the description. */
        public Builder description(String description) {
            this.description = DeliveryChecks.description(description);
            return this;
        }

        /** Enables or disables. */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** Limits attempts to {@code perSecond} (1 to {@value WebhookEndpoints#MAX_RATE_LIMIT}). */
        public Builder rateLimit(int perSecond) {
            this.rateLimit = DeliveryChecks.rateLimit(perSecond);
            this.removeRateLimit = false;
            return this;
        }

        /** Removes the rate limit. */
        public Builder noRateLimit() {
            this.rateLimit = null;
            this.removeRateLimit = true;
            return this;
        }

        /** Replaces the custom headers with {@code headers} (empty: none). */
        public Builder headers(Map<String, String> headers) {
            this.headers = CustomHeaders.check("headers", headers);
            return this;
        }

        /** Orders the events of each ordering key, or stops doing so. */
        public Builder ordered(boolean ordered) {
            this.ordered = ordered;
            return this;
        }

        /** The update. */
        public EndpointUpdate build() {
            return new EndpointUpdate(
                    url, eventTypes, description, enabled, rateLimit, removeRateLimit, ordered, headers);
        }
    }
}

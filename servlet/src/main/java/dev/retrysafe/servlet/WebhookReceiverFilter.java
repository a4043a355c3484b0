package dev.retrysafe.servlet;

import dev.retrysafe.servlet.internal.FilterSettings;
import dev.retrysafe.servlet.internal.HttpOnly;
import dev.retrysafe.servlet.internal.WebhookReceiverHandler;
import dev.retrysafe.webhooks.VerifiedWebhook;
import dev.retrysafe.webhooks.WebhookDeduplicator;
import dev.retrysafe.webhooks.WebhookVerifier;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * For receivers of Standard Webhooks: verifies each delivery before the application sees it and
 * runs each {@code webhook-id} once. This class is threadsafe.
 *
 * <p>The filter reads the raw body (at most {@code maxBodyBytes}) before anything parses it, so
 * the signature is checked over the exact bytes received, then verifies the
 * {@code webhook-id}, {@code webhook-timestamp} and {@code webhook-signature} headers. A delivery
 * that fails answers {@code 400} with a problem whose {@code reason} names the check that failed
 * (never how close a signature came). A verified delivery whose id was already taken on answers
 * {@code 200} without running the application. Otherwise the chain runs with the body readable
 * again and the {@link VerifiedWebhook} in request attribute {@link #WEBHOOK_ATTRIBUTE}; if the
 * application throws or answers anything but {@code 2xx}, the id is forgotten, so the sender's
 * next attempt runs it again.
 *
 * <pre>{@code
 * Filter receiver = WebhookReceiverFilter.builder()
 *         .verifier(WebhookVerifier.builder().secret(WebhookSecret.parse(System.getenv("WEBHOOK_SECRET"))).build())
 *         .deduplicator(InMemoryWebhookDeduplicator.create())
 *         .build();
 * }</pre>
 */
public final class WebhookReceiverFilter implements Filter {

    /** Request attribute holding the {@link VerifiedWebhook} of the delivery. */
    public static final String WEBHOOK_ATTRIBUTE = WebhookReceiverFilter.class.getName() + ".webhook";

    private final WebhookReceiverHandler handler;

    private WebhookReceiverFilter(Builder builder, WebhookVerifier verifier, WebhookDeduplicator deduplicator) {
        this.handler =
                new WebhookReceiverHandler(verifier, deduplicator, builder.maxBodyBytes, builder.problemTypeBase);
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** The verified delivery of {@code request}, or {@code null} outside this filter. */
    public static @Nullable VerifiedWebhook webhookOf(HttpServletRequest request) {
        return request.getAttribute(WEBHOOK_ATTRIBUTE) instanceof VerifiedWebhook webhook ? webhook : null;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpOnly.filter(request, response, chain, handler::handle);
    }

    /** Builds a {@link WebhookReceiverFilter}. Not threadsafe; the built filter is immutable. */
    public static final class Builder {
        private @Nullable WebhookVerifier verifier;
        private @Nullable WebhookDeduplicator deduplicator;
        private int maxBodyBytes = 1024 * 1024;
        private String problemTypeBase = "/problems/";

        private Builder() {}

        /** Checks signatures and timestamps (required). */
        public Builder verifier(WebhookVerifier verifier) {
            this.verifier = verifier;
            return this;
        }

        /** Remembers the ids taken on (required), e.g. a {@code JdbcWebhookDeduplicator} shared by every instance. */
        public Builder deduplicator(WebhookDeduplicator deduplicator) {
            this.deduplicator = deduplicator;
            return this;
        }

        /** Largest body read; a longer one answers 413 (default 1 MiB). */
        public Builder maxBodyBytes(int maxBodyBytes) {
            this.maxBodyBytes = FilterSettings.checkMaxBodyBytes(maxBodyBytes);
            return this;
        }

        /** Prefix of problem {@code type} URIs (default {@code /problems/}). */
        public Builder problemTypeBase(String base) {
            this.problemTypeBase = FilterSettings.checkProblemTypeBase(base);
            return this;
        }

        /**
         * The filter.
         *
         * @throws IllegalStateException if the verifier or the deduplicator was not set
         */
        public WebhookReceiverFilter build() {
            if (verifier == null || deduplicator == null) {
                throw new IllegalStateException("verifier and deduplicator are required; missing:"
                        + (verifier == null ? " verifier" : "") + (deduplicator == null ? " deduplicator" : ""));
            }
            return new WebhookReceiverFilter(this, verifier, deduplicator);
        }
    }
}

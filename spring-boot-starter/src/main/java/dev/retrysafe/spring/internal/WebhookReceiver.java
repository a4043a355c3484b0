package dev.retrysafe.spring.internal;

import dev.retrysafe.servlet.WebhookReceiverFilter;
import dev.retrysafe.webhooks.VerifiedWebhook;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The endpoint of {@code retrysafe.webhooks.in.path}: the servlet module's
 * {@link WebhookReceiverFilter} verifies and de-duplicates, then the verified delivery goes to the
 * {@link WebhookListeners}; {@code 204} when they all returned, {@code 500} when one threw (the
 * filter then forgets the id so the sender's retry runs it again). Only {@code POST} is
 * accepted. It answers itself and never passes the request on. Threadsafe.
 */
public final class WebhookReceiver implements Filter {

    private static final Log LOG = LogFactory.getLog(WebhookReceiver.class);

    private final WebhookReceiverFilter verifier;
    private final WebhookListeners listeners;

    /** The receiver verifying with {@code verifier} and handing events to {@code listeners}. */
    public WebhookReceiver(WebhookReceiverFilter verifier, WebhookListeners listeners) {
        this.verifier = Objects.requireNonNull(verifier, "verifier");
        this.listeners = Objects.requireNonNull(listeners, "listeners");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse answer)) {
            chain.doFilter(request, response);
            return;
        }
        if (!"POST".equals(http.getMethod())) {
            answer.setHeader("Allow", "POST");
            answer.sendError(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
            return;
        }
        verifier.doFilter(request, response, (verifiedRequest, verifiedResponse) -> {
            VerifiedWebhook webhook = WebhookReceiverFilter.webhookOf((HttpServletRequest) verifiedRequest);
            HttpServletResponse out = (HttpServletResponse) verifiedResponse;
            if (webhook == null) {
                out.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
                return;
            }
            try {
                listeners.dispatch(webhook);
                out.setStatus(HttpServletResponse.SC_NO_CONTENT);
            } catch (Exception e) {
                // the sender retries; the answer does not echo the failure, which may hold the event's data
                LOG.warn(
                        "@WebhookListener failed for webhook-id " + webhook.id()
                                + "; answering 500 so the sender retries",
                        e);
                out.setStatus(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
            }
        });
    }
}

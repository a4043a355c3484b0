package dev.retrysafe.acceptance.libraries;

import dev.retrysafe.servlet.WebhookReceiverFilter;
import dev.retrysafe.webhooks.VerifiedWebhook;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Receives Standard Webhooks deliveries behind Retrysafe's {@link WebhookReceiverFilter}: what
 * reaches it is verified and new, since the filter answers a repeated {@code webhook-id} itself.
 * A {@code 2xx} keeps the id; an exception or any other status forgets it, so that the sender's
 * next attempt runs again. This class is threadsafe if {@code events} is.
 */
public final class WebhookEventsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient Consumer<VerifiedWebhook> events;

    /** Hands each verified event to {@code events}: keep it quick, or queue the work. */
    public WebhookEventsServlet(Consumer<VerifiedWebhook> events) {
        this.events = events;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) {
        VerifiedWebhook webhook =
                Objects.requireNonNull(WebhookReceiverFilter.webhookOf(request), "runs behind WebhookReceiverFilter");
        events.accept(webhook);
        response.setStatus(204);
    }
}

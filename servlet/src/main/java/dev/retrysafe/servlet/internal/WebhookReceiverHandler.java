package dev.retrysafe.servlet.internal;

import dev.retrysafe.servlet.ProblemType;
import dev.retrysafe.servlet.WebhookReceiverFilter;
import dev.retrysafe.webhooks.VerifiedWebhook;
import dev.retrysafe.webhooks.WebhookDeduplicator;
import dev.retrysafe.webhooks.WebhookVerificationException;
import dev.retrysafe.webhooks.WebhookVerifier;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.Map;

/**
 * The webhook receiver filter's logic, one delivery at a time: read, verify, de-duplicate, run,
 * forget on failure. Threadsafe (provided the verifier and deduplicator are).
 */
public final class WebhookReceiverHandler {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.servlet");

    private final WebhookVerifier verifier;
    private final WebhookDeduplicator deduplicator;
    private final int maxBodyBytes;
    private final String problemTypeBase;

    /** A handler verifying with {@code verifier} and remembering ids in {@code deduplicator}. */
    public WebhookReceiverHandler(
            WebhookVerifier verifier, WebhookDeduplicator deduplicator, int maxBodyBytes, String problemTypeBase) {
        this.verifier = verifier;
        this.deduplicator = deduplicator;
        this.maxBodyBytes = maxBodyBytes;
        this.problemTypeBase = problemTypeBase;
    }

    /** Handles one delivery as the filter documents. */
    public void handle(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        byte[] body = BoundedBody.ofRequest(request, maxBodyBytes);
        if (body == null) {
            new Answer.Problem(
                            ProblemType.REQUEST_TOO_LARGE,
                            problemTypeBase,
                            "the webhook body is larger than " + maxBodyBytes + " bytes")
                    .writeTo(response);
            return;
        }
        VerifiedWebhook webhook;
        try {
            webhook = verifier.verify(request::getHeader, body);
        } catch (WebhookVerificationException e) {
            // the reason names the check that failed; nothing says how close a signature came
            byte[] problem = ProblemJson.render(
                    ProblemType.WEBHOOK_REJECTED,
                    problemTypeBase,
                    e.getMessage(),
                    Map.of("reason", e.reason().name().toLowerCase(Locale.ROOT)));
            write(response, ProblemType.WEBHOOK_REJECTED.status(), problem);
            return;
        }
        if (!deduplicator.firstTime(webhook.id())) {
            // handled already (or being handled): the sender only needs to hear 2xx
            write(
                    response,
                    HttpServletResponse.SC_OK,
                    "{\"duplicate\":true}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return;
        }
        request.setAttribute(WebhookReceiverFilter.WEBHOOK_ATTRIBUTE, webhook);
        boolean handled = false;
        try {
            chain.doFilter(new CachedBodyRequest(request, body), response);
            int status = response.getStatus();
            handled = status >= 200 && status < 300;
        } finally {
            if (!handled) {
                forget(webhook.id());
            }
        }
    }

    private void forget(String id) {
        try {
            deduplicator.forget(id);
        } catch (RuntimeException e) {
            // the id stays remembered until its time to live runs out; the sender's retries are
            // answered as duplicates meanwhile, which the log must make visible
            LOG.log(
                    Level.ERROR,
                    "webhook " + id + " failed and could not be forgotten; its redeliveries"
                            + " will be skipped until the id expires",
                    e);
        }
    }

    private static void write(HttpServletResponse response, int status, byte[] json) throws IOException {
        response.setStatus(status);
        response.setContentType(status == 200 ? "application/json" : ProblemJson.MEDIA_TYPE);
        response.setContentLength(json.length);
        response.getOutputStream().write(json);
    }
}

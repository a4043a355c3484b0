package dev.retrysafe.spring;

import dev.retrysafe.delivery.TargetDecision;

/** The SSRF guard refused a webhook endpoint's URL; {@link #reason()} says which rule. */
public final class WebhookTargetRefusedException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final transient TargetDecision.Refused refusal;

    /** The exception for {@code refusal}. */
    public WebhookTargetRefusedException(TargetDecision.Refused refusal) {
        super("webhook URL refused (" + refusal.reason() + "): " + refusal.message());
        this.refusal = refusal;
    }

    /** Which rule refused the URL. */
    public TargetDecision.Reason reason() {
        return refusal.reason();
    }
}

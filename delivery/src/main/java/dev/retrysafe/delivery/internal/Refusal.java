package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.TargetDecision;

/**
 * A refusal found while taking a URL apart; {@link DefaultTargetGuard} turns it into a
 * {@link TargetDecision.Refused}. An exception only to leave the parser early, so it carries no
 * stack trace.
 */
public final class Refusal extends Exception {

    private final TargetDecision.Reason reason;

    /** A refusal for {@code reason}, with a message for the person who registered the URL. */
    public Refusal(TargetDecision.Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    /** This refusal as a decision. */
    public TargetDecision.Refused decision() {
        return new TargetDecision.Refused(reason, String.valueOf(getMessage()));
    }
}

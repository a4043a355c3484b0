package dev.retrysafe.idempotency;

/**
 * The claim being completed is no longer held: its lease ran out and another request took it
 * over (or it was released). The caller's transaction must be rolled back, because another
 * request now owns the operation. Thrown by {@link IdempotencyStore#complete}.
 */
public final class ClaimLostException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception naming the lost claim's scope. */
    public ClaimLostException(Scope scope) {
        super("claim lost (lease taken over or released) for " + scope.account() + " / " + scope.route() + " / key of "
                + scope.key().value().length() + " characters; roll back the transaction");
    }
}

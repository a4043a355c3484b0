package dev.retrysafe.idempotency;

/**
 * The store could not be read or written (a database failure). Unchecked, like any I/O failure
 * the caller cannot handle locally: answer {@code 500}/{@code 503} and let the client retry.
 */
public final class IdempotencyStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception saying what the store was doing when {@code cause} happened. */
    public IdempotencyStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}

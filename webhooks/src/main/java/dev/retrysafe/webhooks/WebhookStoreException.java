package dev.retrysafe.webhooks;

/**
 * A de-duplication store could not be read or written (a database failure). Unchecked, like any
 * I/O failure the caller cannot handle locally: answer {@code 503} and the sender will retry.
 */
public final class WebhookStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception saying what the store was doing when {@code cause} happened. */
    public WebhookStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}

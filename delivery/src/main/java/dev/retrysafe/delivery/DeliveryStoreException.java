package dev.retrysafe.delivery;

/**
 * The database failed or could not be reached while reading or writing endpoints, deliveries or
 * the outbox. The message names the operation and never holds a secret or a payload.
 */
public final class DeliveryStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception for {@code operation}, caused by {@code cause}. */
    public DeliveryStoreException(String operation, Throwable cause) {
        super(operation, cause);
    }
}

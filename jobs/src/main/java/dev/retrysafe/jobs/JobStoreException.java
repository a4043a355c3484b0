package dev.retrysafe.jobs;

/**
 * The database failed or could not be reached while reading or writing jobs. The message names
 * the operation and never holds parameters or results.
 */
public final class JobStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception for {@code operation}, caused by {@code cause}. */
    public JobStoreException(String operation, Throwable cause) {
        super(operation, cause);
    }
}

package dev.retrysafe.server.db;

import java.io.IOException;

/**
 * The database cannot be used, with a message for the person who started the server: one line
 * that says what is wrong and what to do (create the database, stop the other server, ...), fit
 * to print as it is, without a stack trace.
 */
public final class DatabaseUnavailableException extends IOException {

    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and what to do, one line */
    public DatabaseUnavailableException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong and what to do, one line
     * @param cause the driver's error, for whoever debugs
     */
    public DatabaseUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

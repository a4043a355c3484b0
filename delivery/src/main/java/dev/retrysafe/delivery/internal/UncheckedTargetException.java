package dev.retrysafe.delivery.internal;

import java.io.IOException;

/**
 * A connection was about to be opened without addresses checked for it: a request that did not
 * come through the sender's guard. Reported as {@code BLOCKED}, never dialled.
 */
public final class UncheckedTargetException extends IOException {

    /** A failure with a message that names no address. */
    public UncheckedTargetException(String message) {
        super(message);
    }
}

package com.example.payments.api;

/**
 * Nothing with that id in the caller's account (another account's resource looks exactly the
 * same): answered {@code 404 not-found}.
 */
public final class NotFoundException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A {@code noun} that the caller's account does not have. */
    public NotFoundException(String noun) {
        super("No " + noun + " with that id in this account.");
    }
}

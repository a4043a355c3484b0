package com.example.payments.bank;

/** The bank could not process a charge; nothing was charged. Answered {@code 503}, retryable. */
public final class BankUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The bank's answer could not be had. */
    public BankUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

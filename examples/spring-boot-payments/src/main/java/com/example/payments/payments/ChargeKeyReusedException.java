package com.example.payments.payments;

import com.example.payments.api.Problems;
import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/**
 * The bank knows this request's charge key for another amount or currency (a key reused after a
 * failed first try with another body): nothing was charged. Answered {@code 422}, as the server does.
 */
final class ChargeKeyReusedException extends ErrorResponseException {

    private static final long serialVersionUID = 1L;

    ChargeKeyReusedException() {
        super(
                HttpStatus.UNPROCESSABLE_CONTENT,
                Problems.of(
                        HttpStatus.UNPROCESSABLE_CONTENT,
                        "idempotency-key-reused",
                        "Idempotency-Key reused",
                        "This Idempotency-Key was already used at the bank for a charge of another amount or currency."
                                + " Nothing was charged; use a new key for a new payment.",
                        false),
                null);
    }
}

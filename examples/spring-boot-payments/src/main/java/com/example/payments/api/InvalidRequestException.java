package com.example.payments.api;

import java.util.List;

/** The request's fields or parameters are invalid: answered {@code 400 validation-failed}. */
public final class InvalidRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<FieldError> errors;

    /** One entry per bad field. */
    public InvalidRequestException(List<FieldError> errors) {
        super(
                errors.size() == 1
                        ? errors.get(0).field() + ": " + errors.get(0).detail()
                        : errors.size() + " fields are invalid");
        this.errors = List.copyOf(errors);
    }

    /** Every invalid field. */
    public List<FieldError> errors() {
        return errors;
    }
}

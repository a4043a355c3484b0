package dev.retrysafe.server.payments;

import dev.retrysafe.server.http.FieldError;
import java.util.List;

/**
 * The outcome of validating a request body: the request, or every field that is wrong. An
 * expected outcome, so a value and not an exception. Immutable.
 *
 * @param <T> the request type
 */
public sealed interface Validated<T> permits Validated.Valid, Validated.Invalid {

    /** The body is valid. @param request the request @param <T> the request type */
    record Valid<T>(T request) implements Validated<T> {}

    /** The body is not. @param errors one entry per bad field @param <T> the request type */
    record Invalid<T>(List<FieldError> errors) implements Validated<T> {}
}

package com.example.payments.api;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * Turns what went wrong into the same problem answers as the Retrysafe server: bad input is a
 * {@code 4xx} that names what to fix, never a {@code 500}.
 */
@RestControllerAdvice
class ProblemAdvice {

    private static final Logger LOG = LoggerFactory.getLogger(ProblemAdvice.class);

    @ExceptionHandler
    ProblemDetail invalid(InvalidRequestException e) {
        ProblemDetail p =
                Problems.of(HttpStatus.BAD_REQUEST, "validation-failed", "Invalid request", e.getMessage(), false);
        p.setProperty("errors", e.errors());
        return p;
    }

    @ExceptionHandler
    ProblemDetail notFound(NotFoundException e) {
        return Problems.of(HttpStatus.NOT_FOUND, "not-found", "Not found", e.getMessage(), false);
    }

    @ExceptionHandler
    ProblemDetail noRoute(NoResourceFoundException e) {
        return Problems.of(HttpStatus.NOT_FOUND, "not-found", "Not found", "There is nothing at this path.", false);
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> wrongMethod(HttpRequestMethodNotSupportedException e) {
        ProblemDetail p = Problems.of(
                HttpStatus.METHOD_NOT_ALLOWED,
                "method-not-allowed",
                "Method not allowed",
                "This path does not accept " + e.getMethod() + ".",
                false);
        HttpHeaders headers = new HttpHeaders();
        if (e.getSupportedHttpMethods() != null) {
            headers.setAllow(e.getSupportedHttpMethods());
        }
        return ResponseEntity.status(HttpStatus.METHOD_NOT_ALLOWED)
                .headers(headers)
                .body(p);
    }

    @ExceptionHandler
    ProblemDetail notJson(HttpMessageNotReadableException e) {
        return Problems.of(
                HttpStatus.BAD_REQUEST,
                "malformed-json",
                "Malformed JSON",
                "The body is not one valid JSON object.",
                false);
    }

    @ExceptionHandler
    ProblemDetail mediaType(HttpMediaTypeNotSupportedException e) {
        return Problems.of(
                HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                "unsupported-media-type",
                "Unsupported media type",
                "Expected Content-Type: application/json.",
                false);
    }

    @ExceptionHandler
    ResponseEntity<ProblemDetail> bankUnavailable(com.example.payments.bank.BankUnavailableException e) {
        ProblemDetail p = Problems.of(
                HttpStatus.SERVICE_UNAVAILABLE,
                "bank-unavailable",
                "Bank unavailable",
                "The bank could not process the charge. Nothing was charged; retry with the same Idempotency-Key.",
                true);
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, "1")
                .body(p);
    }

    /** An exception that carries its own problem (a {@code ResponseStatusException}, say) keeps it. */
    @ExceptionHandler
    ResponseEntity<ProblemDetail> ownProblem(ErrorResponseException e) {
        return ResponseEntity.status(e.getStatusCode()).headers(e.getHeaders()).body(e.getBody());
    }

    /**
     * Anything else is a failure of ours. The transaction has rolled back by now (the exception
     * left the {@code @Transactional} method), so the request had no effect and may be retried.
     */
    @ExceptionHandler
    ProblemDetail failed(RuntimeException e) {
        LOG.error("request failed; its transaction was rolled back", e);
        return Problems.of(
                HttpStatus.INTERNAL_SERVER_ERROR,
                "internal-error",
                "Internal error",
                "Something failed inside the server. Any effect of the request was rolled back, so it is safe to retry.",
                true);
    }
}

package dev.retrysafe.spring.internal;

import dev.retrysafe.spring.RetrysafeRateLimitedException;
import java.util.Locale;
import org.springframework.context.MessageSource;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * The answer to a {@link RetrysafeRateLimitedException} when nothing of the application's handles
 * it: its {@link ProblemDetail} as {@code application/problem+json}, with its status and headers,
 * its title and detail taken from the application's messages when it has them (as a
 * {@code ResponseEntityExceptionHandler} does). Last of the advices, so an application's own
 * {@code @ExceptionHandler} (for this exception, {@code ErrorResponseException} or anything
 * broader, or a {@code ResponseEntityExceptionHandler}) comes first. Threadsafe.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public final class RateLimitProblems {

    private final MessageSource messages;

    /** Answers with titles and details from {@code messages} where it has them. */
    public RateLimitProblems(MessageSource messages) {
        this.messages = messages;
    }

    /** The refusal's problem. */
    @ExceptionHandler(RetrysafeRateLimitedException.class)
    public ResponseEntity<ProblemDetail> refused(RetrysafeRateLimitedException refused, Locale locale) {
        return ResponseEntity.status(refused.getStatusCode())
                .headers(refused.getHeaders())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(refused.updateAndGetBody(messages, locale));
    }
}

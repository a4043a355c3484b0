package dev.retrysafe.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Opts a controller method (or every handler method of a controller) into idempotency keys: a
 * request that carries an {@code Idempotency-Key} has its effect once, and a retry gets the first
 * answer back with {@code Idempotent-Replayed: true}. The key is scoped by the caller
 * ({@link RetrysafeCaller}), the method and the mapping's pattern (such as
 * {@code /v1/payments/{id}/capture}); the method runs in a Spring-managed transaction on the
 * application's {@code DataSource} which the method's own {@code @Transactional} JDBC work joins,
 * and its answer is stored in that transaction. A request without a caller passes untouched.
 *
 * <p>Status codes as in Retrysafe's idempotency documentation: a missing key answers {@code 400}
 * when {@link #keyRequired()}, a key still running {@code 409}, the same key with another request
 * {@code 422}; an answer of 500 or more, or an exception, rolls back and lets the key go.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Idempotent {

    /** Whether a request without an {@code Idempotency-Key} answers {@code 400} (else it runs unkeyed). */
    boolean keyRequired() default true;
}

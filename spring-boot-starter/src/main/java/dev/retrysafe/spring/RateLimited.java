package dev.retrysafe.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a controller method (or every handler method of a controller) by the named policies of
 * {@code retrysafe.rate-limits.policies}, checked together in one atomic decision. Every answer
 * carries the budget headers ({@code RateLimit-Policy}, {@code RateLimit}, {@code X-RateLimit-*});
 * a refusal answers {@code 429} with {@code Retry-After} as a {@code ProblemDetail}, raised in
 * Spring MVC as a {@link RetrysafeRateLimitedException} that the application's exception handlers
 * may shape. A replayed answer
 * and a {@code 409} of an {@link Idempotent} method spend nothing. An annotation on the method
 * replaces one on its class.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface RateLimited {

    /** The names of the policies that apply, as keys of {@code retrysafe.rate-limits.policies}. */
    String[] value();
}

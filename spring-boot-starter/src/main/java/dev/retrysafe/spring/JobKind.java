package dev.retrysafe.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the kind of job a {@link dev.retrysafe.jobs.JobHandler} bean runs, on the bean's class or
 * its {@code @Bean} method. A handler bean without it runs the kind named like the bean, which
 * must then be 1 to 64 characters of {@code [a-z0-9_.-]}.
 *
 * <pre>{@code
 * @Component
 * @JobKind(value = "payments_csv", maxConcurrency = 2)
 * class PaymentsCsv implements JobHandler { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface JobKind {

    /** The kind, 1 to 64 characters of {@code [a-z0-9_.-]}. */
    String value();

    /** Most jobs of the kind running at once across all instances (1 to 10000; default 1). */
    int maxConcurrency() default 1;
}

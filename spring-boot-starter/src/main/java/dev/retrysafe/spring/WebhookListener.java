package dev.retrysafe.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method that receives verified Standard Webhooks events posted to
 * {@code retrysafe.webhooks.in.path}. The starter checks the signature and the timestamp against
 * {@code retrysafe.webhooks.in.secrets} and de-duplicates by {@code webhook-id} before any
 * listener runs, so a listener runs once per event even when the sender posts it twice; if a
 * listener throws, the receiver answers {@code 500} and forgets the id, so the sender's next
 * attempt runs it again.
 *
 * <p>The method takes one parameter: {@link dev.retrysafe.webhooks.VerifiedWebhook} (id,
 * timestamp, exact bytes), {@code String} or {@code byte[]} (the body), or any type Jackson reads
 * the JSON body into (a record, {@code JsonNode}, {@code Map}).
 *
 * <pre>{@code
 * @WebhookListener(types = "payment.succeeded")
 * void paid(PaymentEvent event) { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface WebhookListener {

    /**
     * The event types (the body's {@code type} field) this method receives; empty for every type.
     */
    String[] types() default {};
}

package dev.retrysafe.webhooks;

import java.time.Duration;

/**
 * Remembers which {@code webhook-id}s a receiver has taken on, so that an event delivered twice
 * (the sender retried after losing our {@code 2xx}) is handled once. An id is remembered for a
 * time to live, which must outlast the sender's whole retry schedule (ours spans about three
 * days of attempts; the default of 48 hours covers redeliveries of a handled event, which come
 * after a lost answer and so within minutes to hours).
 *
 * <p>Intended use is claim, run, release on failure, after verification:
 * <pre>{@code
 * VerifiedWebhook webhook = verifier.verify(request::getHeader, rawBody);   // 400 on failure
 * if (!deduplicator.firstTime(webhook.id())) {
 *     return 200;                        // a duplicate: handled already, or being handled now
 * }
 * try {
 *     handle(webhook);
 * } catch (RuntimeException e) {
 *     deduplicator.forget(webhook.id()); // so the sender's next attempt runs the handler again
 *     return 500;
 * }
 * return 200;
 * }</pre>
 * Claiming before running (rather than recording after success) is what makes two concurrent
 * copies run the handler once. Its one gap: a copy that arrives while the first still runs is
 * answered as a duplicate, and if the first then fails the sender has already been told
 * {@code 2xx}. Answer quickly (hand slow work to a durable queue, well inside the sender's
 * timeout), or, with {@link JdbcWebhookDeduplicator#firstTime(java.sql.Connection, String)},
 * record the id in the same transaction as the handler's effects: then the id is remembered
 * exactly when the effects are.
 *
 * <p>Ids are 1 to {@value WebhookSigner#MAX_ID_LENGTH} characters (what a verifier accepts).
 * Implementations are threadsafe, and atomic: of any number of concurrent calls of
 * {@link #firstTime} with one id, exactly one returns {@code true}.
 */
public interface WebhookDeduplicator {

    /** How long ids are remembered unless configured otherwise. */
    Duration DEFAULT_TTL = Duration.ofHours(48);

    /**
     * Records {@code webhookId} as taken on now; {@code true} if it was not already remembered
     * (never seen, forgotten, or seen longer ago than the time to live).
     *
     * @throws IllegalArgumentException if the id is empty or longer than 255 characters
     * @throws WebhookStoreException if the store cannot be reached
     */
    boolean firstTime(String webhookId);

    /**
     * Forgets {@code webhookId}, so that its next delivery counts as the first: call it when the
     * handler failed and the sender will redeliver. Forgetting an unknown id does nothing.
     *
     * @throws WebhookStoreException if the store cannot be reached
     */
    void forget(String webhookId);
}

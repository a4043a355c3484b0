/**
 * A retrying HTTP client on {@code java.net.http} that retries only what is safe. Depends on the
 * JDK alone.
 */
@SuppressWarnings("module") // dev.retrysafe.sdk and dev.retrysafe.delivery are built after it
module dev.retrysafe.client {
    requires static transitive org.jspecify;
    requires transitive java.net.http;

    exports dev.retrysafe.client;
    // the typed SDK reads Retry-After and sends Idempotency-Key as the client does, and the webhook
    // dispatcher reads a receiver's Retry-After with the same parser; not an API
    exports dev.retrysafe.client.internal to
            dev.retrysafe.sdk,
            dev.retrysafe.delivery;
}

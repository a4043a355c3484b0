/**
 * A retrying HTTP client on {@code java.net.http} that retries only what is safe. Depends on the
 * JDK alone.
 */
@SuppressWarnings("module") // dev.retrysafe.sdk is built after it
module dev.retrysafe.client {
    requires static transitive org.jspecify;
    requires transitive java.net.http;

    exports dev.retrysafe.client;
    // the typed SDK reads Retry-After and sends Idempotency-Key as the client does; not an API
    exports dev.retrysafe.client.internal to dev.retrysafe.sdk;
}

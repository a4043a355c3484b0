/**
 * A retrying HTTP client on {@code java.net.http} that retries only what is safe, and a typed
 * client for the Retrysafe server built on it. Depends on the JDK alone.
 */
module dev.retrysafe.client {
    requires static transitive org.jspecify;
    requires transitive java.net.http;

    exports dev.retrysafe.client;
}

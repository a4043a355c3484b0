/**
 * A typed client of the Retrysafe server's API, built on the retrying client. Depends on
 * {@code dev.retrysafe.client}, Retrysafe's internal {@code dev.retrysafe.common} (the one JSON
 * string escaper) and the JDK alone.
 */
module dev.retrysafe.sdk {
    requires static transitive org.jspecify;
    requires transitive dev.retrysafe.client;
    requires dev.retrysafe.common;

    exports dev.retrysafe.sdk;
}

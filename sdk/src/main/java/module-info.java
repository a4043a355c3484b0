/**
 * A typed client of the Retrysafe server's API, built on the retrying client. Depends on
 * {@code dev.retrysafe.client} and the JDK alone.
 */
module dev.retrysafe.sdk {
    requires static transitive org.jspecify;
    requires transitive dev.retrysafe.client;

    exports dev.retrysafe.sdk;
}

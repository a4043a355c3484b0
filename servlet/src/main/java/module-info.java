/** Jakarta Servlet filters: idempotency with the request's transaction, rate limits, client addresses behind trusted proxies, and webhook verification for receivers. */
module dev.retrysafe.servlet {
    requires static transitive org.jspecify;
    requires transitive dev.retrysafe.idempotency;
    requires transitive dev.retrysafe.ratelimit;
    requires transitive dev.retrysafe.webhooks;
    requires transitive jakarta.servlet;
    requires dev.retrysafe.common;

    exports dev.retrysafe.servlet;
}

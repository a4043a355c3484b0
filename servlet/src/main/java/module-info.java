/** Jakarta Servlet filters: idempotency with the request's transaction, and rate limits. */
module dev.retrysafe.servlet {
    requires static transitive org.jspecify;
    requires transitive dev.retrysafe.idempotency;
    requires transitive dev.retrysafe.ratelimit;
    requires transitive jakarta.servlet;

    exports dev.retrysafe.servlet;
}

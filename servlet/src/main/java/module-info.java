/** Jakarta Servlet filters: idempotency with the request's transaction. */
module dev.retrysafe.servlet {
    requires static transitive org.jspecify;
    requires transitive dev.retrysafe.idempotency;
    requires transitive jakarta.servlet;

    exports dev.retrysafe.servlet;
}

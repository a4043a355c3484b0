/** Durable webhook delivery: outbox, dispatcher, retry schedule, SSRF guard, attempt log. */
module dev.retrysafe.delivery {
    requires static transitive org.jspecify;
    requires transitive dev.retrysafe.webhooks;
    // transitive: the outbox takes a Pipeline
    requires transitive dev.retrysafe.leasedwork;
    requires transitive java.sql;
    requires dev.retrysafe.common;
    requires dev.retrysafe.client; // its Retry-After parser, through a qualified export
    requires org.eclipse.jetty.client;

    exports dev.retrysafe.delivery;
}

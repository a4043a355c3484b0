/** Durable asynchronous jobs over JDBC: leased claims, heartbeats, cancel, retention, per-kind limits. */
module dev.retrysafe.jobs {
    requires static transitive org.jspecify;
    requires transitive java.sql;
    requires dev.retrysafe.common;
    requires dev.retrysafe.leasedwork;

    exports dev.retrysafe.jobs;
}

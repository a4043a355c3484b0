/**
 * Leased work over JDBC: the one engine that claims due rows with a lease, wakes on commit,
 * renews and takes over leases, bounds its workers and closes gracefully, used by webhook
 * delivery and by jobs. Its public package holds {@link dev.retrysafe.leasedwork.Pipeline}
 * (statements of one transaction in as few round trips as the database allows); the engine and
 * the JDBC helpers are exported only to the two modules built on them, so no user can come to
 * depend on them.
 */
@SuppressWarnings("module") // the modules the engine is exported to are built after it
module dev.retrysafe.leasedwork {
    requires static transitive org.jspecify;
    requires transitive java.sql;
    requires dev.retrysafe.common;

    exports dev.retrysafe.leasedwork;
    exports dev.retrysafe.leasedwork.internal to
            dev.retrysafe.delivery,
            dev.retrysafe.jobs;
}

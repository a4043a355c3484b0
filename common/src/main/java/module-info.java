/**
 * Internal to Retrysafe, not an API: code that several of our JDBC modules would otherwise each
 * carry a copy of. Its package is exported only to those modules, so no user can come to depend
 * on it.
 */
@SuppressWarnings("module") // the modules it is exported to are built after it
module dev.retrysafe.common {
    requires static transitive org.jspecify;
    requires transitive java.sql;

    exports dev.retrysafe.common to
            dev.retrysafe.leasedwork,
            dev.retrysafe.jobs,
            dev.retrysafe.delivery,
            dev.retrysafe.idempotency,
            dev.retrysafe.ratelimit.redis,
            dev.retrysafe.servlet,
            dev.retrysafe.liveevents,
            dev.retrysafe.sdk;
}

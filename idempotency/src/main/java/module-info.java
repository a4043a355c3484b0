/** Idempotency keys: rules, fingerprints, claim/complete/replay, JDBC store. */
module dev.retrysafe.idempotency {
    requires static transitive org.jspecify;
    requires transitive java.sql;
    requires dev.retrysafe.common;

    exports dev.retrysafe.idempotency;
}

/** Idempotency keys: rules, fingerprints, claim/complete/replay, JDBC store. */
module dev.retrysafe.idempotency {
    requires static transitive org.jspecify;
    requires transitive java.sql;

    exports dev.retrysafe.idempotency;
}

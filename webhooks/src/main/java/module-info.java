/**
 * Standard Webhooks for senders and receivers: secrets, signing, verification and de-duplication
 * by {@code webhook-id}. Depends on the JDK alone ({@code java.sql} for the JDBC de-duplicator).
 */
module dev.retrysafe.webhooks {
    requires static transitive org.jspecify;
    requires transitive java.sql;

    exports dev.retrysafe.webhooks;
}

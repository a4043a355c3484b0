package com.example.payments.bank;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The simulated bank. A charge is recorded under its charge key at once, through connections of
 * the bank's own (a small pool on the same database: a real bank is another system, and knows
 * nothing of the payment's transaction), then takes {@code RETRYSAFE_BANK_LATENCY_MS} to
 * process. Its own pool matters: a keyed request holds one of the application's connections for
 * its whole transaction, so a second transaction taken from the same pool would need two
 * connections per request, and at more requests in flight than the pool has connections every
 * request would wait for a connection that none gives back (measured: 0 payments a second at 64
 * connections of load, with the pool's 10). A key charged before is not
 * charged again: a retry of a request whose answer was lost (a crash, a timeout) reaches the bank
 * with the same key and gets the same charge. Threadsafe.
 */
@Component
public class Bank implements DisposableBean {

    private static final String INSERT =
            "INSERT INTO bank_charges (charge_key, account_id, amount, currency, created_at) VALUES (?, ?, ?, ?, ?)";
    private static final String FIND = "SELECT amount, currency FROM bank_charges WHERE charge_key = ?";

    /** Connections of the bank's own; each statement commits by itself. */
    private final HikariDataSource connections;

    private final JdbcTemplate jdbc;
    private final Duration latency;
    private final Clock clock;

    Bank(DataSourceProperties database, Clock clock, @Value("${RETRYSAFE_BANK_LATENCY_MS:100}") long latencyMillis) {
        if (latencyMillis < 0 || latencyMillis > 60_000) {
            throw new IllegalArgumentException(
                    "RETRYSAFE_BANK_LATENCY_MS must be 0..60000 milliseconds, was " + latencyMillis);
        }
        this.connections = database.initializeDataSourceBuilder()
                .type(HikariDataSource.class)
                .build();
        this.connections.setPoolName("bank");
        this.connections.setMaximumPoolSize(4);
        this.jdbc = new JdbcTemplate(connections);
        this.clock = clock;
        this.latency = Duration.ofMillis(latencyMillis);
    }

    /**
     * Charges {@code amount} once per {@code chargeKey}.
     *
     * @return false when the key was charged before for another amount or currency (nothing is charged now)
     */
    public boolean charge(String chargeKey, String accountId, long amount, String currency) {
        try {
            // committed at once on the bank's own connection: the bank has taken the money,
            // whatever becomes of the caller's transaction
            jdbc.update(
                    INSERT, chargeKey, accountId, amount, currency, OffsetDateTime.now(clock.withZone(ZoneOffset.UTC)));
        } catch (DuplicateKeyException chargedBefore) {
            // a retry of a charge the bank already took: the same charge, unless the amount differs
            return Boolean.TRUE.equals(jdbc.query(
                    FIND,
                    rs -> rs.next()
                            && rs.getLong(1) == amount
                            && rs.getString(2).equals(currency),
                    chargeKey));
        }
        try {
            if (latency.isPositive()) {
                Thread.sleep(latency); // the processing time of the simulated bank
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BankUnavailableException("interrupted while the bank processed the charge", e);
        }
        return true;
    }

    @Override
    public void destroy() {
        connections.close();
    }

    /**
     * The key a payment sends to the bank: SHA-256 of the account and the request's idempotency
     * key, so that every retry of one request asks for the same charge while the client's own key
     * never leaves the application.
     */
    public static String chargeKey(String accountId, String idempotencyKey) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((accountId.length() + ":" + accountId + ":" + idempotencyKey)
                            .getBytes(StandardCharsets.UTF_8));
            return "ch_" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}

package dev.retrysafe.server.bank;

import dev.retrysafe.server.config.BankConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;

/**
 * A simulated bank. A charge takes the configured latency, may be declined or fail as
 * configured, and is idempotent by its charge key: a key seen before returns the recorded
 * outcome without charging again. The record is written with autocommit on the bank's own
 * connections, like an external system that knows nothing of our transaction. This class is
 * threadsafe.
 */
public final class Bank {

    private static final String FIND =
            "SELECT outcome, amount, currency FROM bank_charges WHERE charge_key = ? AND created_at >= ?";
    // a key older than the retention is forgotten: its record is reused for the new charge
    private static final String REUSE_EXPIRED = """
            UPDATE bank_charges SET account_id = ?, amount = ?, currency = ?, outcome = ?, created_at = ?
            WHERE charge_key = ? AND created_at < ?""";
    /** SQLSTATE of a unique violation (PostgreSQL and H2): the charge key was recorded before. */
    private static final String UNIQUE_VIOLATION = "23505";

    private static final String INSERT = """
            INSERT INTO bank_charges (charge_key, account_id, amount, currency, outcome, created_at)
            VALUES (?, ?, ?, ?, ?, ?)""";

    /**
     * How the bank spends its processing time for one charge. Production sleeps for the configured
     * latency; tests may also hold a charge until they release it, to reach "the first request is
     * still at the bank" deterministically.
     */
    @FunctionalInterface
    public interface Processing {
        /** Sleeps for the latency: the simulated processing time. */
        Processing SLEEP = (chargeKey, latency) -> {
            if (latency.isPositive()) {
                Thread.sleep(latency); // not for zero: on a virtual thread that still yields
            }
        };

        /** Spends the processing time of the charge {@code chargeKey}. */
        void process(String chargeKey, Duration latency) throws InterruptedException;
    }

    private final DataSource dataSource;
    private final BankConfig config;
    private final Clock clock;
    private final RandomGenerator random;
    private final Processing processing;
    private final Duration keyRetention;

    /**
     * A bank keeping its records in {@code dataSource} and rolling failures with {@code random}.
     * Like a real processor it remembers charge keys for {@code keyRetention} (the server passes
     * its idempotency retention): a retry within it never charges twice, and a key reused after it
     * is a new charge, just as the server treats the request as new.
     */
    public Bank(
            DataSource dataSource,
            BankConfig config,
            Clock clock,
            RandomGenerator random,
            Processing processing,
            Duration keyRetention) {
        this.dataSource = dataSource;
        this.config = config;
        this.clock = clock;
        this.random = random;
        this.processing = processing;
        this.keyRetention = keyRetention;
    }

    /**
     * Charges {@code amount} once per {@code chargeKey}.
     *
     * @throws SQLException when the bank's records cannot be read or written
     * @throws InterruptedException when interrupted while the charge is under way
     */
    public ChargeOutcome charge(String chargeKey, String accountId, long amount, String currency)
            throws SQLException, InterruptedException {
        OffsetDateTime forgottenBefore = at(clock.instant().minus(keyRetention));
        // the simulated processing time (a real bank would be a network call here), spent without
        // holding one of the bank's connections, so that slow charges do not exhaust its pool
        processing.process(chargeKey, config.latency());
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            if (random.nextDouble() < config.errorRate()) {
                // only a new charge can fail: one recorded by an earlier try stands
                return find(c, chargeKey, forgottenBefore, amount, currency).orElse(ChargeOutcome.UNAVAILABLE);
            }
            ChargeOutcome outcome =
                    random.nextDouble() < config.declineRate() ? ChargeOutcome.DECLINED : ChargeOutcome.APPROVED;
            OffsetDateTime now = at(clock.instant());
            // insert first: a new charge (the common case) is one statement; a key charged before
            // makes the insert fail, and the recorded outcome wins over the one just rolled
            try (PreparedStatement ps = c.prepareStatement(INSERT)) {
                ps.setString(1, chargeKey);
                ps.setString(2, accountId);
                ps.setLong(3, amount);
                ps.setString(4, currency);
                ps.setString(5, outcome.name());
                ps.setObject(6, now);
                ps.executeUpdate();
                return outcome;
            } catch (SQLException e) {
                if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
                    // not the key charged before: the connection broke or the database went away,
                    // and the statements below would only hide that behind "connection is closed"
                    throw e;
                }
                if (reuseExpired(c, chargeKey, accountId, amount, currency, outcome, now, forgottenBefore)) {
                    return outcome;
                }
                // a concurrent charge with the same key won the insert: its outcome is the answer
                return find(c, chargeKey, forgottenBefore, amount, currency).orElseThrow(() -> e);
            }
        }
    }

    private static boolean reuseExpired(
            Connection c,
            String chargeKey,
            String accountId,
            long amount,
            String currency,
            ChargeOutcome outcome,
            OffsetDateTime now,
            OffsetDateTime forgottenBefore)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(REUSE_EXPIRED)) {
            ps.setString(1, accountId);
            ps.setLong(2, amount);
            ps.setString(3, currency);
            ps.setString(4, outcome.name());
            ps.setObject(5, now);
            ps.setString(6, chargeKey);
            ps.setObject(7, forgottenBefore);
            return ps.executeUpdate() == 1;
        }
    }

    private static OffsetDateTime at(java.time.Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    /**
     * The recorded outcome of {@code chargeKey}, or {@link ChargeOutcome#KEY_REUSED} when it was
     * recorded for another amount or currency: like a real processor, the bank never lets one key
     * stand for two different charges (which would record a payment it never took).
     */
    private static Optional<ChargeOutcome> find(
            Connection c, String chargeKey, OffsetDateTime forgottenBefore, long amount, String currency)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(FIND)) {
            ps.setString(1, chargeKey);
            ps.setObject(2, forgottenBefore);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                boolean same = rs.getLong(2) == amount && rs.getString(3).equals(currency);
                return Optional.of(same ? ChargeOutcome.valueOf(rs.getString(1)) : ChargeOutcome.KEY_REUSED);
            }
        }
    }
}

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

    private static final String FIND = "SELECT outcome FROM bank_charges WHERE charge_key = ?";
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
        Processing SLEEP = (chargeKey, latency) -> Thread.sleep(latency);

        /** Spends the processing time of the charge {@code chargeKey}. */
        void process(String chargeKey, Duration latency) throws InterruptedException;
    }

    private final DataSource dataSource;
    private final BankConfig config;
    private final Clock clock;
    private final RandomGenerator random;
    private final Processing processing;

    /** A bank keeping its records in {@code dataSource} and rolling failures with {@code random}. */
    public Bank(DataSource dataSource, BankConfig config, Clock clock, RandomGenerator random,
                Processing processing) {
        this.dataSource = dataSource;
        this.config = config;
        this.clock = clock;
        this.random = random;
        this.processing = processing;
    }

    /**
     * Charges {@code amount} once per {@code chargeKey}.
     *
     * @throws SQLException when the bank's records cannot be read or written
     * @throws InterruptedException when interrupted while the charge is under way
     */
    public ChargeOutcome charge(String chargeKey, String accountId, long amount, String currency)
            throws SQLException, InterruptedException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            Optional<ChargeOutcome> known = find(c, chargeKey);
            if (known.isPresent()) {
                return known.get();
            }
            // the simulated processing time; a real bank would be a network call here
            processing.process(chargeKey, config.latency());
            if (random.nextDouble() < config.errorRate()) {
                return ChargeOutcome.UNAVAILABLE;
            }
            ChargeOutcome outcome = random.nextDouble() < config.declineRate()
                    ? ChargeOutcome.DECLINED : ChargeOutcome.APPROVED;
            try (PreparedStatement ps = c.prepareStatement(INSERT)) {
                ps.setString(1, chargeKey);
                ps.setString(2, accountId);
                ps.setLong(3, amount);
                ps.setString(4, currency);
                ps.setString(5, outcome.name());
                ps.setObject(6, OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC));
                ps.executeUpdate();
                return outcome;
            } catch (SQLException e) {
                // a concurrent charge with the same key won the insert: its outcome is the answer
                return find(c, chargeKey).orElseThrow(() -> e);
            }
        }
    }

    private static Optional<ChargeOutcome> find(Connection c, String chargeKey) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(FIND)) {
            ps.setString(1, chargeKey);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(ChargeOutcome.valueOf(rs.getString(1))) : Optional.empty();
            }
        }
    }
}

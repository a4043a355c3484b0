package dev.retrysafe.server.bank;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.config.BankConfig;
import dev.retrysafe.server.config.DatabaseConfig;
import dev.retrysafe.server.db.Database;
import dev.retrysafe.testkit.FakeClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The simulated bank's idempotency by charge key, on the server's own schema (H2). */
class BankChargeKeyTest {

    private static final Duration RETENTION = Duration.ofHours(24);

    private final FakeClock clock = new FakeClock();
    private Database db;
    private Bank bank;

    @BeforeEach
    void open() {
        String url = "jdbc:h2:mem:bank_" + UUID.randomUUID().toString().replace("-", "")
                + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1";
        db = Database.open(new DatabaseConfig(url, "", "", 2), Path.of("."), "bank-test", 2);
        db.migrate();
        bank = new Bank(db.dataSource(), new BankConfig(Duration.ZERO, 0, 0), clock, RandomGenerator.getDefault(),
                Bank.Processing.SLEEP, RETENTION);
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void aKeySeenBeforeReturnsItsOutcomeAndChargesNothingMore() throws Exception {
        assertThat(bank.charge("ch_1", "acct_1", 700, "eur")).isEqualTo(ChargeOutcome.APPROVED);
        assertThat(bank.charge("ch_1", "acct_1", 700, "eur")).isEqualTo(ChargeOutcome.APPROVED);
        assertThat(rows()).isEqualTo(1);
    }

    /** Regression: a key reused with another amount reported the first charge's APPROVED. */
    @Test
    void aKeySeenForAnotherAmountOrCurrencyIsRefusedAndRecordsNothing() throws Exception {
        assertThat(bank.charge("ch_1", "acct_1", 7, "eur")).isEqualTo(ChargeOutcome.APPROVED);

        assertThat(bank.charge("ch_1", "acct_1", 99_999, "eur")).isEqualTo(ChargeOutcome.KEY_REUSED);
        assertThat(bank.charge("ch_1", "acct_1", 7, "usd")).isEqualTo(ChargeOutcome.KEY_REUSED);
        assertThat(rows()).isEqualTo(1);
    }

    @Test
    void aKeyIsForgottenAfterTheRetentionAndThenChargesAgain() throws Exception {
        assertThat(bank.charge("ch_1", "acct_1", 7, "eur")).isEqualTo(ChargeOutcome.APPROVED);
        clock.advance(RETENTION.plusMillis(1));

        assertThat(bank.charge("ch_1", "acct_1", 99_999, "eur")).isEqualTo(ChargeOutcome.APPROVED);
        assertThat(bank.charge("ch_1", "acct_1", 99_999, "eur")).isEqualTo(ChargeOutcome.APPROVED);
        assertThat(rows()).isEqualTo(1);
    }

    private long rows() throws Exception {
        try (var c = db.dataSource().getConnection();
             var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM bank_charges")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

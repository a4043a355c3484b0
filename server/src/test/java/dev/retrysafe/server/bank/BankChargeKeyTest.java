package dev.retrysafe.server.bank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.server.config.BankConfig;
import dev.retrysafe.server.config.DatabaseConfig;
import dev.retrysafe.server.db.Database;
import dev.retrysafe.testkit.FakeClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;
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
        bank = new Bank(
                db.dataSource(),
                new BankConfig(Duration.ZERO, 0, 0),
                clock,
                RandomGenerator.getDefault(),
                Bank.Processing.SLEEP,
                RETENTION);
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

    /**
     * Regression (fault-injection suite, PostgreSQL restart): an insert that failed because the
     * connection broke was taken for a key charged before; the follow-up statements then failed
     * with the pool's "connection is closed", which hid the outage and made the request a 500.
     */
    @Test
    void aConnectionThatBreaksDuringTheChargeFailsWithTheOutageItself() throws Exception {
        DataSource breaking = breakingOnInsert(db.dataSource());
        Bank failing = new Bank(
                breaking,
                new BankConfig(Duration.ZERO, 0, 0),
                clock,
                RandomGenerator.getDefault(),
                Bank.Processing.SLEEP,
                RETENTION);

        assertThatThrownBy(() -> failing.charge("ch_1", "acct_1", 700, "eur"))
                .isInstanceOfSatisfying(
                        SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("08006"));
        assertThat(rows()).isZero();
    }

    /** Connections whose first insert fails as a dropped connection does; every later statement fails as closed. */
    private static DataSource breakingOnInsert(DataSource real) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(real, method, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    Connection connection = (Connection) result;
                    AtomicBoolean broken = new AtomicBoolean();
                    return Proxy.newProxyInstance(
                            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
                                if (m.getName().equals("prepareStatement")) {
                                    if (broken.get()) {
                                        throw new SQLException("Connection is closed");
                                    }
                                    if (String.valueOf(a[0]).contains("INSERT")) {
                                        broken.set(true);
                                        throw new SQLException(
                                                "An I/O error occurred while sending to the backend.", "08006");
                                    }
                                }
                                return invoke(connection, m, a);
                            });
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private long rows() throws Exception {
        try (var c = db.dataSource().getConnection();
                var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM bank_charges")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

package dev.retrysafe.server.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.leasedwork.Pipeline;
import dev.retrysafe.liveevents.PositionedEvent;
import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.accounts.AccountStore;
import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The numbering of events in each account's stream, over the server's migrated schema, written
 * once and run against H2 and PostgreSQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StreamPositionsContract {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private ThrowawayDatabase database;
    private Transactions transactions;
    private AccountStore accounts;
    private EventLog log;
    private Account account;
    private Account other;

    /** A new, empty database of this test class's own. */
    protected abstract ThrowawayDatabase openDatabase();

    @BeforeAll
    void migrate() {
        database = openDatabase();
        Flyway.configure()
                .dataSource(database.dataSource())
                .locations("classpath:db/migration")
                .load()
                .migrate();
        transactions = new Transactions(database.dataSource());
        Ids ids = new Ids(Clock.systemUTC());
        accounts = new AccountStore(transactions, ids, Clock.systemUTC());
        log = new EventLog(ids);
    }

    @AfterAll
    void drop() {
        if (database != null) {
            database.close();
        }
    }

    @BeforeEach
    void freshAccounts() throws SQLException {
        account = accounts.create("a", "free", ApiKeys.generate());
        other = accounts.create("b", "free", ApiKeys.generate());
    }

    private String append(Account owner, String type) throws SQLException {
        return transactions.inNewTransaction(c -> append(c, owner, type));
    }

    private String append(Connection c, Account owner, String type) throws SQLException {
        return log.append(c, owner.id(), type, Clock.systemUTC().instant(), Map.of("n", 1));
    }

    private StreamPositions.Assigned assign(Account owner) throws SQLException {
        return transactions.inNewTransaction(c -> StreamPositions.assign(c, owner.id(), 1000));
    }

    private List<PositionedEvent> after(Account owner, long seq) throws SQLException {
        return transactions.inNewTransaction(c -> StreamPositions.after(c, owner.id(), seq, 1000));
    }

    private java.util.OptionalLong positionOf(Account owner, String eventId) throws SQLException {
        return transactions.inNewTransaction(c -> StreamPositions.positionOf(c, owner.id(), eventId));
    }

    private java.util.Set<String> news(Map<String, Long> positions) throws SQLException {
        return transactions.inNewTransaction(c -> StreamPositions.withNews(c, positions));
    }

    private static List<String> ids(List<PositionedEvent> events) {
        return events.stream().map(e -> (String) e.envelope().get("id")).toList();
    }

    @Test
    void numbersCommittedEventsOneAfterTheOtherAndReadsThemInOrder() throws SQLException {
        // given
        String first = append(account, "payment.succeeded");
        String second = append(account, "refund.created");
        append(other, "payment.succeeded");

        // when
        StreamPositions.Assigned numbered = assign(account);

        // then
        assertThat(numbered).isEqualTo(new StreamPositions.Assigned(2, 2));
        List<PositionedEvent> events = after(account, 0);
        assertThat(events).extracting(PositionedEvent::seq).containsExactly(1L, 2L);
        assertThat(events).extracting(PositionedEvent::type).containsExactly("payment.succeeded", "refund.created");
        assertThat(ids(events)).containsExactly(first, second);
        assertThat(events.getFirst().envelope()).containsKeys("id", "type", "timestamp", "data");
        assertThat(after(account, 1)).extracting(PositionedEvent::seq).containsExactly(2L);
        assertThat(assign(account)).as("nothing new").isEqualTo(new StreamPositions.Assigned(2, 0));
        String third = append(account, "payment.failed");
        assertThat(assign(account)).isEqualTo(new StreamPositions.Assigned(3, 1));
        assertThat(ids(after(account, 2))).containsExactly(third);
        assertThat(after(other, 0))
                .as("another account's events are numbered in its own stream")
                .isEmpty();
    }

    @Test
    void anEventIsNumberedWhenItCommitsNotWhenItWasMade() throws Exception {
        // given: an older event whose transaction is still open
        try (Connection open = database.dataSource().getConnection()) {
            open.setAutoCommit(false);
            String late = append(open, account, "payment.succeeded");
            String early = append(account, "payment.succeeded");

            // when
            assertThat(assign(account).last()).isEqualTo(1);
            open.commit();
            open.setAutoCommit(true);
            assertThat(assign(account).last()).isEqualTo(2);

            // then: the stream shows them in the order they became visible
            assertThat(ids(after(account, 0))).containsExactly(early, late);
        }
    }

    @Test
    void eventsWaitingTogetherAreNumberedInTheOrderTheyWereWrittenNotByTheirIds() throws SQLException {
        // given: ids that sort against the order of writing, as two instances' clocks may make them
        String written = "evt_7zzzzzzzzzzzzzzzzzzzzzzzzz";
        String writtenLater = "evt_00000000000000000000000000";
        transactions.inNewTransaction(c -> {
            EventStore.insert(
                    Pipeline.immediate(c),
                    written,
                    account.id(),
                    "payment.succeeded",
                    Clock.systemUTC().instant(),
                    "{}",
                    null,
                    null);
            return null;
        });
        transactions.inNewTransaction(c -> {
            EventStore.insert(
                    Pipeline.immediate(c),
                    writtenLater,
                    account.id(),
                    "refund.created",
                    Clock.systemUTC().instant(),
                    "{}",
                    null,
                    null);
            return null;
        });

        // when
        assign(account);

        // then
        assertThat(ids(after(account, 0))).containsExactly(written, writtenLater);
    }

    @Test
    void positionOfAnEventIsScopedToItsAccount() throws SQLException {
        String mine = append(account, "payment.succeeded");
        String theirs = append(other, "payment.succeeded");
        assign(account);
        assign(other);

        assertThat(positionOf(account, mine)).hasValue(1);
        assertThat(positionOf(account, theirs)).isEmpty();
        assertThat(positionOf(account, "evt_none")).isEmpty();
    }

    @Test
    void newsAreUnnumberedEventsOrPositionsBeyondTheOnesGiven() throws SQLException {
        append(account, "payment.succeeded");
        assign(account);
        append(other, "payment.succeeded");

        assertThat(news(Map.of(account.id(), 1L, other.id(), 0L))).containsExactly(other.id());
        assertThat(news(Map.of(account.id(), 0L))).containsExactly(account.id());
        assign(other);
        assertThat(news(Map.of(account.id(), 1L, other.id(), 1L))).isEmpty();
    }

    @Test
    void concurrentNumberersGiveEveryEventExactlyOnePositionWithoutGaps() throws Exception {
        int writers = 3;
        int perWriter = 40;
        int numberers = 3;
        ExecutorService pool = Executors.newFixedThreadPool(writers + numberers);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                tasks.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perWriter; i++) {
                        append(account, "payment.succeeded");
                    }
                    return null;
                }));
            }
            List<Future<?>> numbering = new ArrayList<>();
            for (int n = 0; n < numberers; n++) {
                numbering.add(pool.submit(() -> {
                    start.await();
                    while (writing.get()) {
                        try {
                            assign(account);
                        } catch (SQLException e) {
                            // two numberers made the account's row at once: the loser retries, as the feed does
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> t : tasks) {
                t.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            }
            writing.set(false);
            for (Future<?> t : numbering) {
                t.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assign(account);

        List<PositionedEvent> events = after(account, 0);
        assertThat(events).hasSize(writers * perWriter);
        assertThat(events)
                .extracting(PositionedEvent::seq)
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, writers * perWriter)
                        .boxed()
                        .toList());
    }
}

package dev.retrysafe.leasedwork;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.ThrowawayDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pipeline on PostgreSQL (writes held back and sent with the next query, in order, their
 * parameters numbered across the statements) and on H2 (every write at once). PostgreSQL must be
 * reachable: this test fails, never skips, without it.
 */
class PipelineTest {

    private static final String CREATE = """
            CREATE TABLE notes (id VARCHAR(16) PRIMARY KEY, n BIGINT NOT NULL, body BYTEA, note VARCHAR(64),
                                at TIMESTAMP WITH TIME ZONE NOT NULL)""";
    private static final String INSERT = "INSERT INTO notes (id, n, body, note, at) VALUES (?, ?, ?, ?, ?)";
    private static final String RENAME = "UPDATE notes SET note = ?, n = n + ? WHERE id = ?";
    private static final String COUNTED = "INSERT INTO notes (id, n, at) VALUES (?, nextval('pipeline_seq'), ?)";
    private static final String SELECT = "SELECT id, n, body, note FROM notes WHERE n >= ? ORDER BY id";
    private static final OffsetDateTime AT = OffsetDateTime.of(2026, 12, 3, 12, 0, 0, 0, ZoneOffset.UTC);

    private static ThrowawayDatabase postgres;
    private static ThrowawayDatabase h2;

    @BeforeAll
    static void open() throws SQLException {
        postgres = ThrowawayDatabase.postgres();
        h2 = ThrowawayDatabase.h2("pipeline");
        for (ThrowawayDatabase db : List.of(postgres, h2)) {
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute(CREATE);
                s.execute("CREATE SEQUENCE pipeline_seq");
            }
        }
    }

    @AfterAll
    static void close() {
        postgres.close();
        h2.close();
    }

    @Test
    void onPostgresWritesAreHeldBackThenSentInOrderWithTheQueryTheirParametersNumberedAcrossStatements()
            throws SQLException {
        try (Connection c = postgres.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Pipeline p = Pipeline.on(c);
            p.write(
                    INSERT,
                    b -> b.string("a1")
                            .longValue(10)
                            .bytes("x".getBytes(StandardCharsets.UTF_8))
                            .string(null)
                            .object(AT));
            p.write(
                    INSERT,
                    b -> b.string("a2")
                            .longValue(20)
                            .bytes(null)
                            .string("second")
                            .object(AT));
            p.write(RENAME, b -> b.string("renamed").longValue(5).string("a2")); // only right after a2's insert

            assertThat(p.pending()).isTrue();
            assertThat(count(c)).as("nothing sent before the query").isZero();

            List<String> rows = p.query(SELECT, b -> b.longValue(15), PipelineTest::read);

            assertThat(rows)
                    .as("the query ran after the writes, which ran in order")
                    .containsExactly("a2/25/null/renamed");
            assertThat(p.pending()).isFalse();
            assertThat(p.query(SELECT, b -> b.longValue(0), PipelineTest::read))
                    .containsExactly("a1/10/x/null", "a2/25/null/renamed");
            c.rollback();
        }
    }

    @Test
    void onPostgresAFailingHeldBackWriteFailsTheQueryAndNothingAfterItRuns() throws SQLException {
        try (Connection c = postgres.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Pipeline p = Pipeline.on(c);
            p.write(
                    INSERT,
                    b -> b.string("b1").longValue(1).bytes(null).string(null).object(AT));
            p.write(
                    INSERT,
                    b -> b.string("b1").longValue(2).bytes(null).string(null).object(AT)); // same id
            p.write(COUNTED, b -> b.string("b3").object(AT)); // would take a sequence value, which no rollback returns

            assertThatThrownBy(() -> p.query(SELECT, b -> b.longValue(0), PipelineTest::read))
                    .isInstanceOfSatisfying(
                            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));

            assertThat(p.pending()).as("a failed command is not sent again").isFalse();
            c.rollback();
            assertThat(count(c)).isZero();
            assertThat(nextInSequence(c))
                    .as("the write after the failing one never ran")
                    .isEqualTo(1);
        }
    }

    @Test
    void onPostgresFlushSendsWhatIsHeldBackAndNothingWhenEmpty() throws SQLException {
        try (Connection c = postgres.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Pipeline p = Pipeline.on(c);
            p.flush();
            p.write(
                    INSERT,
                    b -> b.string("c1").longValue(1).bytes(null).string(null).object(AT));
            p.write(
                    INSERT,
                    b -> b.string("c2").longValue(2).bytes(null).string(null).object(AT));
            assertThat(count(c)).isZero();

            p.flush();

            assertThat(count(c)).isEqualTo(2);
            c.rollback();
        }
    }

    @Test
    void onH2AndWhenImmediateEveryWriteRunsAtOnce() throws SQLException {
        for (ThrowawayDatabase db : List.of(h2, postgres)) {
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                Pipeline p = db == h2 ? Pipeline.on(c) : Pipeline.immediate(c);
                p.write(
                        INSERT,
                        b -> b.string("d1")
                                .longValue(5)
                                .bytes(null)
                                .string("now")
                                .object(AT));

                assertThat(p.pending()).isFalse();
                assertThat(count(c)).isEqualTo(1);
                assertThat(p.query(SELECT, b -> b.longValue(0), PipelineTest::read))
                        .containsExactly("d1/5/null/now");
                assertThatThrownBy(() -> p.write(
                                INSERT,
                                b -> b.string("d1")
                                        .longValue(6)
                                        .bytes(null)
                                        .string(null)
                                        .object(AT)))
                        .as("the write itself fails")
                        .isInstanceOf(SQLException.class);
                c.rollback();
            }
        }
    }

    @Test
    void aBinderThatBindsOtherThanItsStatementsParametersFailsBeforeAnythingIsSent() throws SQLException {
        try (Connection c = postgres.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Pipeline p = Pipeline.on(c);
            // one too many, then one too few: the total matches, the statements' values would not
            p.write(
                    INSERT,
                    b -> b.string("e1")
                            .longValue(1)
                            .bytes(null)
                            .string(null)
                            .object(AT)
                            .string("x"));
            p.write(RENAME, b -> b.longValue(1).string("e1"));

            assertThatThrownBy(() -> p.query(SELECT, b -> b.longValue(0), PipelineTest::read))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("bound 6 parameters to a statement that has 5");
            c.rollback();
            assertThat(count(c)).isZero();
        }
        try (Connection c = h2.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Pipeline p = Pipeline.on(c);

            assertThatThrownBy(() -> p.write(
                            INSERT, b -> b.string("e1").longValue(1).bytes(null).string(null)))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("bound 4 parameters to a statement that has 5");
            c.rollback();
            assertThat(count(c)).isZero();
        }
    }

    private static long nextInSequence(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT nextval('pipeline_seq')")) {
            r.next();
            return r.getLong(1);
        }
    }

    private static List<String> read(ResultSet r) throws SQLException {
        List<String> out = new ArrayList<>();
        while (r.next()) {
            byte[] body = r.getBytes("body");
            out.add(r.getString("id") + "/" + r.getLong("n") + "/"
                    + (body == null ? "null" : new String(body, StandardCharsets.UTF_8)) + "/" + r.getString("note"));
        }
        return out;
    }

    private static long count(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM notes")) {
            r.next();
            return r.getLong(1);
        }
    }
}

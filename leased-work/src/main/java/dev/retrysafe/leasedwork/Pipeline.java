package dev.retrysafe.leasedwork;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Statements of one transaction sent in as few round trips as the database allows. On PostgreSQL
 * a {@link #write} is held back and sent with the next {@link #query} (or {@link #flush}) as one
 * command of several statements, which the server runs in order and answers in one round trip;
 * anywhere else (H2, which runs in process) each write runs at once. Either way the statements
 * run in the order given, in the caller's transaction, and a failing one fails the call that sent
 * it, with nothing after it run; so a held-back write's error surfaces from the next query or
 * flush instead of from the write itself, which is why writes here are those whose only result is
 * success (an insert whose key is fresh, say) and never those whose failure the caller handles.
 *
 * <p>The delivery module's {@code Outbox} takes one so that the change an event describes goes to the database in
 * the same round trip as the outbox's lookup of the subscribed endpoints:
 *
 * <pre>{@code
 * Pipeline p = Pipeline.on(tx);
 * p.write("INSERT INTO payments (id, amount) VALUES (?, ?)", b -> b.string(id).longValue(amount));
 * outbox.appendCounting(p, event); // payment row, then the endpoint lookup: one round trip
 * }</pre>
 *
 * <p>Each write is one statement, with no {@code ;} of its own; its parameters are {@code ?}
 * (never inside a literal), and its binder must bind exactly that many, which is checked before
 * anything is sent. A held-back write's binder runs when the command is sent, so it must capture
 * values that do not change meanwhile. One round trip holds with pgjdbc's defaults; a connection
 * setting that makes pgjdbc describe a statement first ({@code stringtype=unspecified}, say) can
 * make it two, with the same results.
 *
 * <p>A pipeline belongs to one transaction and one thread. Whoever makes one must {@link #flush}
 * it before the transaction commits; {@link #pending()} tells whether anything is held back.
 */
public final class Pipeline {

    /** Binds one statement's parameters, in order. */
    @FunctionalInterface
    public interface Binder {
        /** Binds the statement's parameters through {@code params}. */
        void bind(Params params) throws SQLException;
    }

    /** Reads a query's rows. */
    @FunctionalInterface
    public interface Reader<T> {
        /** The result of reading {@code rows}. */
        T read(ResultSet rows) throws SQLException;
    }

    /** The next parameters of a statement (or of several sent as one), numbered across all of them. */
    public static final class Params {
        private final PreparedStatement statement;
        private int next = 1;

        Params(PreparedStatement statement) {
            this.statement = statement;
        }

        /** Binds a text (or SQL NULL). */
        public Params string(@Nullable String value) throws SQLException {
            statement.setString(next++, value);
            return this;
        }

        /** Binds a 64-bit integer. */
        public Params longValue(long value) throws SQLException {
            statement.setLong(next++, value);
            return this;
        }

        /** Binds bytes (or SQL NULL). */
        public Params bytes(byte @Nullable [] value) throws SQLException {
            statement.setBytes(next++, value);
            return this;
        }

        /** Binds a value the driver maps itself ({@code OffsetDateTime}, say); never null. */
        public Params object(Object value) throws SQLException {
            statement.setObject(next++, value);
            return this;
        }

        /** Runs {@code binder} for {@code sql}, failing if it bound other than its parameters' number. */
        Params bind(String sql, Binder binder) throws SQLException {
            int first = next;
            binder.bind(this);
            int expected = parameters(sql);
            if (next - first != expected) {
                throw new SQLException(
                        "bound " + (next - first) + " parameters to a statement that has " + expected + ": " + sql);
            }
            return this;
        }

        private static int parameters(String sql) {
            int n = 0;
            for (int i = 0; i < sql.length(); i++) {
                if (sql.charAt(i) == '?') {
                    n++;
                }
            }
            return n;
        }
    }

    private record Write(String sql, Binder binder) {}

    private final Connection transaction;
    private final boolean holdsBack;
    private final List<Write> held = new ArrayList<>(4);

    private Pipeline(Connection transaction, boolean holdsBack) {
        this.transaction = transaction;
        this.holdsBack = holdsBack;
    }

    /** A pipeline on {@code transaction}: writes held back on PostgreSQL, run at once elsewhere. */
    public static Pipeline on(Connection transaction) throws SQLException {
        return new Pipeline(
                transaction, "PostgreSQL".equals(transaction.getMetaData().getDatabaseProductName()));
    }

    /** A pipeline that runs every statement at once, whatever the database. */
    public static Pipeline immediate(Connection transaction) {
        return new Pipeline(transaction, false);
    }

    /** The transaction's connection (flush first before using it directly). */
    public Connection connection() {
        return transaction;
    }

    /** Whether writes are held back, not yet sent. */
    public boolean pending() {
        return !held.isEmpty();
    }

    /**
     * Writes with {@code sql}: now, or held back until the next query or flush (whose call then
     * reports this write's failure, with nothing after it run).
     */
    public void write(String sql, Binder binder) throws SQLException {
        if (holdsBack) {
            held.add(new Write(sql, binder));
            return;
        }
        try (PreparedStatement s = transaction.prepareStatement(sql)) {
            new Params(s).bind(sql, binder);
            s.executeUpdate();
        }
    }

    /** Sends the held-back writes, then the query, in one round trip; answers what {@code reader} reads. */
    public <T> T query(String sql, Binder binder, Reader<T> reader) throws SQLException {
        try (PreparedStatement s = transaction.prepareStatement(combined(sql))) {
            bindHeld(s).bind(sql, binder);
            boolean rows = s.execute();
            for (int i = 0; i < held.size(); i++) {
                if (rows) {
                    throw new SQLException("a write sent through the pipeline returned rows: "
                            + held.get(i).sql());
                }
                rows = s.getMoreResults();
            }
            if (!rows) {
                throw new SQLException("the query gave no result set: " + sql);
            }
            try (ResultSet r = s.getResultSet()) {
                return reader.read(r);
            }
        } finally {
            held.clear(); // sent, or failed with an exception that makes the caller roll back: never resent
        }
    }

    /** Sends the held-back writes, if any, in one round trip. */
    public void flush() throws SQLException {
        if (held.isEmpty()) {
            return;
        }
        try (PreparedStatement s = transaction.prepareStatement(combined(null))) {
            bindHeld(s);
            s.execute();
        } finally {
            held.clear();
        }
    }

    /** Binds the held-back writes' parameters, first to last; answers where the next ones go. */
    private Params bindHeld(PreparedStatement s) throws SQLException {
        Params params = new Params(s);
        for (Write w : held) {
            params.bind(w.sql(), w.binder());
        }
        return params;
    }

    private String combined(@Nullable String last) {
        if (held.isEmpty()) {
            return last == null ? "" : last;
        }
        StringBuilder sql = new StringBuilder(256);
        for (Write w : held) {
            sql.append(w.sql()).append("\n;\n"); // on its own line: a trailing -- comment cannot swallow it
        }
        if (last != null) {
            sql.append(last);
        }
        return sql.toString();
    }
}

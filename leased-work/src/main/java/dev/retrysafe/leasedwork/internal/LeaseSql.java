package dev.retrysafe.leasedwork.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The statements that take, extend, hand back and end the leases of one table of leased work,
 * built once from its layout so that every table leases alike. A leased row has the columns
 * {@code id}, {@code status}, {@code lease_owner} (the instance) and {@code lease_token} (one
 * claim); while held, its status is {@code heldStatus} and its {@code due} column holds the end of
 * the lease, so the row of a dead holder comes due again by itself. A table with
 * {@code expires} also holds the end of the lease in {@code lease_expires_at} (for readers that
 * count live claims).
 *
 * <p>Every statement that changes a held row names the claim's token: a holder whose lease ran out
 * and was taken over changes nothing. Plain SQL that runs unchanged on PostgreSQL and H2 2.x.
 * Immutable and threadsafe.
 *
 * @param table      the table
 * @param heldStatus the status of a held row (a literal of the schema, never user input)
 * @param due        the column that orders due rows and holds the lease's end while held
 * @param expires    whether the table has the column {@code lease_expires_at}
 */
public record LeaseSql(String table, String heldStatus, String due, boolean expires) {

    /** The column that also holds the lease's end, in tables that have it. */
    private static final String EXPIRES = "lease_expires_at";

    /** Checks that the names are plain identifiers (they are spliced into SQL). */
    public LeaseSql {
        identifier(table);
        identifier(heldStatus);
        identifier(due);
    }

    private static void identifier(String name) {
        Objects.requireNonNull(name);
        if (!name.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("not a plain SQL identifier: '" + name + "'");
        }
    }

    /** The assignments that take a lease; params: owner, token, lease end ({@code expires}), lease end ({@code due}). */
    private String take() {
        return "lease_owner = ?, lease_token = ?, " + (expires ? EXPIRES + " = ?, " : "") + due + " = ?";
    }

    /** The assignments that end a lease. */
    private String drop() {
        return "lease_owner = NULL, lease_token = NULL" + (expires ? ", " + EXPIRES + " = NULL" : "");
    }

    private static String also(String assignments) {
        return assignments.isEmpty() ? "" : ", " + assignments;
    }

    /**
     * Claims one row if {@code condition} still holds: a conditional update, so of two instances
     * that chose the same row exactly one changes it. Params: owner, token, lease end (twice if
     * the table has {@code expires}), the params of {@code assignments}, id, those of
     * {@code condition}.
     */
    public String claim(String assignments, String condition) {
        return "UPDATE " + table + " SET status = '" + heldStatus + "', " + take() + also(assignments)
                + " WHERE id = ? AND " + condition;
    }

    /**
     * Takes over a held row whose lease ran out, if its lease is still the expired one read.
     * Params: owner, token, lease end (twice if the table has {@code expires}), the params of
     * {@code assignments}, id, the expired token, now.
     */
    public String takeOver(String assignments) {
        return "UPDATE " + table + " SET " + take() + also(assignments)
                + " WHERE id = ? AND lease_token = ? AND status = '" + heldStatus + "' AND " + due + " <= ?";
    }

    /**
     * Extends a held lease (a heartbeat). Params: lease end (twice if the table has
     * {@code expires}), id, token.
     */
    public String extend() {
        return "UPDATE " + table + " SET " + due + " = ?" + (expires ? ", " + EXPIRES + " = ?" : "")
                + " WHERE id = ? AND lease_token = ? AND status = '" + heldStatus + "'";
    }

    /**
     * Ends a held lease with {@code assignments} (a new status, say), if the claim still holds
     * it: handing it back or finishing the row. Params: those of {@code assignments}, id, token.
     */
    public String endHeld(String assignments) {
        return end(assignments) + " AND status = '" + heldStatus + "'";
    }

    /**
     * Ends the lease of the claim with {@code assignments}, fenced by its token alone. Params:
     * those of {@code assignments}, id, token.
     */
    public String end(String assignments) {
        return "UPDATE " + table + " SET " + assignments + ", " + drop() + " WHERE id = ? AND lease_token = ?";
    }

    /**
     * PostgreSQL: ends the leases of many claims in one statement, each fenced by its own token
     * like {@link #end}: a row whose claim ran out and was taken over is not matched and changes
     * nothing. {@code rows} is a FROM item with the alias {@code v} and the columns {@code id} and
     * {@code token} (an {@code unnest} of arrays, say); {@code assignments} takes its values from
     * the other columns of {@code v} and from the row itself (alias {@code t}). Answers the id and
     * token of every row it ended ({@code RETURNING v.id, v.token}), so each claim learns whether
     * it still held its row. Params: those of {@code assignments}, then those of {@code rows}.
     */
    public String endEach(String assignments, String rows) {
        // IS NOT DISTINCT FROM (v.token is never null) is the token check that no index serves: with
        // "=", PostgreSQL looked each row up by its token, and a claim's rows share one token, so
        // each lookup read every row of the claim (37 index entries per row in a drain)
        return "UPDATE " + table + " t SET " + assignments + ", " + drop() + " FROM " + rows
                + " WHERE t.id = v.id AND t.lease_token IS NOT DISTINCT FROM v.token RETURNING v.id, v.token";
    }

    /** The condition of a claim held and not expired (needs {@code expires}); param: now. */
    public String live() {
        if (!expires) {
            throw new IllegalStateException(table + " has no column " + EXPIRES);
        }
        return "status = '" + heldStatus + "' AND " + EXPIRES + " > ?";
    }

    /** Reads what an attempt needs of one claimed row. */
    @FunctionalInterface
    public interface RowReader<T> {
        /** The claim in the current row of {@code r}. */
        T read(ResultSet r) throws SQLException;
    }

    /**
     * How the rows a claim took are read back: on PostgreSQL the claim's {@code RETURNING} over
     * the table (alias {@code alias}) joined with {@code join} on {@code on}; elsewhere
     * {@code selectChosen}, whose params are the chosen ids (an array) and the claim's token: the
     * rows of those ids that the claim took, found by primary key (no index on the token needed).
     */
    public record Readback(String alias, String join, String on, String returning, String selectChosen) {}

    /**
     * PostgreSQL's claim of chosen rows in one statement: takes those still due that no other
     * transaction holds, skipping (not waiting for) rows another instance is claiming or finishing
     * at that moment, and returns what their work needs. The row locks are re-checked against the
     * newest row version, so a row another instance claimed since this one chose it is no longer
     * due and is left out. Params: owner, token, lease end (twice if the table has
     * {@code expires}), chosen ids (array), now.
     */
    public String claimSkippingLocked(Readback readback) {
        return claimSkippingLocked(readback, "= ANY (?)");
    }

    /**
     * {@link #claimSkippingLocked(Readback)} of the rows whose id meets {@code chosen}, a condition
     * on the id such as {@code IN (SELECT id FROM picked)} (a common table expression of the
     * statement this one is part of). Params: owner, token, lease end (twice if the table has
     * {@code expires}), those of {@code chosen}, now.
     */
    public String claimSkippingLocked(Readback readback, String chosen) {
        return "UPDATE " + table + " " + readback.alias() + " SET status = '" + heldStatus + "', " + take()
                + " FROM " + readback.join() + " WHERE " + readback.on() + " AND " + readback.alias()
                + ".id IN (SELECT id FROM " + table + " WHERE id " + chosen + " AND " + due
                + " <= ? FOR UPDATE SKIP LOCKED) RETURNING " + readback.returning();
    }

    /**
     * Claims the {@code chosen} rows (ids in id order) that are still due, on one auto-commit
     * connection, and reads them back. On PostgreSQL one statement skips rows another instance
     * holds ({@link #claimSkippingLocked}); elsewhere (H2) one conditional update per row in one
     * batch, in id order (so concurrent batches lock rows in the same order and cannot deadlock),
     * then one read of the chosen rows the token took. A lock wait that gave up claims nothing. Answers in
     * the order of {@code readback} on H2, of the database on PostgreSQL (callers sort).
     */
    public <T> List<T> claimChosen(
            Connection c,
            List<String> chosen,
            String owner,
            String token,
            long leaseEnd,
            long now,
            Readback readback,
            RowReader<T> reader)
            throws SQLException {
        List<T> out = new ArrayList<>(chosen.size());
        if (Jdbc.isPostgres(c)) {
            try (PreparedStatement s = c.prepareStatement(claimSkippingLocked(readback))) {
                int i = bindTake(s, owner, token, leaseEnd);
                s.setArray(i++, c.createArrayOf("VARCHAR", chosen.toArray()));
                s.setLong(i, now);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        out.add(reader.read(r));
                    }
                }
            }
            return out;
        }
        try (PreparedStatement s = c.prepareStatement(claim("", due + " <= ?"))) {
            for (String id : chosen) {
                int i = bindTake(s, owner, token, leaseEnd);
                s.setString(i++, id);
                s.setLong(i, now);
                s.addBatch();
            }
            s.executeBatch();
        } catch (SQLException e) {
            if (Jdbc.isTransientConflict(e)) {
                return List.of(); // a lock wait gave up: nothing claimed, try again soon
            }
            throw e;
        }
        try (PreparedStatement s = c.prepareStatement(readback.selectChosen())) {
            s.setArray(1, c.createArrayOf("VARCHAR", chosen.toArray()));
            s.setString(2, token);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(reader.read(r));
                }
            }
        }
        return out;
    }

    /** Binds owner, token and the lease's end (twice if the table has {@code expires}); answers the next index. */
    public int bindTake(PreparedStatement s, String owner, String token, long leaseEnd) throws SQLException {
        return bindTake(s, 1, owner, token, leaseEnd);
    }

    /** {@link #bindTake(PreparedStatement, String, String, long)} from the param {@code first} on. */
    public int bindTake(PreparedStatement s, int first, String owner, String token, long leaseEnd) throws SQLException {
        int i = first;
        s.setString(i++, owner);
        s.setString(i++, token);
        s.setLong(i++, leaseEnd);
        if (expires) {
            s.setLong(i++, leaseEnd);
        }
        return i;
    }
}

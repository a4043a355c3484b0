package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobListener;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** Small JDBC steps shared by the stores. Stateless. */
final class Statements {

    private Statements() {}

    /** The job {@code id}, which must exist (read inside the transaction that changed it). */
    static Job byId(Connection c, String id, Instant now) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(JobSql.BY_ID)) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new SQLException("job " + id + " vanished inside its own transaction");
                }
                return JobRows.job(r, now);
            }
        }
    }

    /** Reads the job's final state and tells {@code listener}, inside the transaction that made it final. */
    static Job announce(Connection c, String id, Instant now, JobListener listener) throws SQLException {
        Job job = byId(c, id, now);
        listener.finished(c, job);
        return job;
    }

    /** A count whose one parameter is {@code kind}. */
    static long count(Connection c, String sql, String kind) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, kind);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    /** Runs an update whose parameters are strings, ints and longs, in order. */
    static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                switch (params[i]) {
                    case String text -> s.setString(i + 1, text);
                    case Integer number -> s.setInt(i + 1, number);
                    case Long number -> s.setLong(i + 1, number);
                    default -> throw new IllegalArgumentException("unsupported parameter type " + params[i].getClass());
                }
            }
            return s.executeUpdate();
        }
    }
}

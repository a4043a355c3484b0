package dev.retrysafe.leasedwork.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Reads nullable columns of the current row; each module maps its rows to its records with these
 * ({@code DeliveryRows}, {@code JobRows}). Stateless and threadsafe.
 */
public final class Rows {

    private Rows() {}

    /** The instant (epoch milliseconds) in column {@code column}, or {@code null}. */
    public static @Nullable Instant millis(ResultSet r, String column) throws SQLException {
        long value = r.getLong(column);
        return r.wasNull() ? null : Instant.ofEpochMilli(value);
    }

    /** The integer in column {@code column}, or {@code null}. */
    public static @Nullable Integer integer(ResultSet r, String column) throws SQLException {
        int value = r.getInt(column);
        return r.wasNull() ? null : value;
    }
}

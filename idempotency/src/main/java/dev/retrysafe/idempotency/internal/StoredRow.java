package dev.retrysafe.idempotency.internal;

import dev.retrysafe.idempotency.StoredResponse;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/** One row of {@code idempotency_keys} as read; {@code response} is null while in progress. */
record StoredRow(
        String fingerprint,
        String leaseToken,
        long leaseExpiresAt,
        long createdAt,
        @Nullable StoredResponse response) {

    boolean completed() {
        return response != null;
    }

    /** The row at {@code r}'s cursor, read by a query selecting {@link StoreSql#ROW_COLUMNS}. */
    static StoredRow from(ResultSet r) throws SQLException {
        r.getLong("completed_at");
        StoredResponse response = r.wasNull()
                ? null
                : new StoredResponse(
                        r.getInt("response_status"),
                        HeaderCodec.decode(nullToEmpty(r.getString("response_headers"))),
                        nullToEmpty(r.getBytes("response_body")));
        return new StoredRow(
                r.getString("fingerprint"),
                r.getString("lease_token"),
                r.getLong("lease_expires_at"),
                r.getLong("created_at"),
                response);
    }

    private static String nullToEmpty(@Nullable String s) {
        return s == null ? "" : s;
    }

    private static byte[] nullToEmpty(byte @Nullable [] b) {
        return b == null ? new byte[0] : b;
    }
}

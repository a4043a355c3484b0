package dev.retrysafe.delivery.internal;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.leasedwork.internal.Jdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Which way a claim goes: on PostgreSQL, while no open endpoint has a rate limit and there are
 * at most {@link #MOST_ENDPOINTS} open ones, the claim is one statement that visits each open
 * endpoint's due deliveries ({@link DispatchSql#CLAIM_BY_ENDPOINT}: its cost follows the number of
 * endpoints and the deliveries taken, not the backlog); otherwise (H2, rate limits to pace, many
 * endpoints) it is {@link DueScan}'s scan in due order and a claim of what it chose. The census of
 * endpoints is read again at most once per {@link #CENSUS_NANOS}, on monotonic time: an endpoint
 * that gets a rate limit is paced from the census after (its deliveries wait for it, at most that
 * long, since the statement leaves rate-limited endpoints out). One per claim loop; not
 * threadsafe.
 */
final class ClaimRoute {

    /**
     * Most open endpoints a claim visits one by one: each costs a short index descent per claim,
     * which the scan in due order does not pay when few endpoints have due deliveries.
     */
    static final int MOST_ENDPOINTS = 256;

    /** How long a census of the endpoints serves. */
    static final long CENSUS_NANOS = 1_000_000_000L;

    /** Open endpoints and how many of them have a rate limit; no params. */
    static final String CENSUS =
            "SELECT COUNT(*), COUNT(rate_limit) FROM webhook_endpoints WHERE enabled = TRUE AND paused_at IS NULL";

    private boolean byEndpoint;
    private long readAt;
    private boolean read;

    /** Whether the claim on {@code c} goes by endpoint; reads the census when it is due. */
    boolean byEndpoint(Connection c) throws SQLException {
        if (!Jdbc.isPostgres(c)) {
            return false;
        }
        long now = MonotonicClock.nanoTime();
        if (!read || now - readAt >= CENSUS_NANOS) {
            try (PreparedStatement s = c.prepareStatement(CENSUS);
                    ResultSet r = s.executeQuery()) {
                r.next();
                byEndpoint = r.getLong(1) <= MOST_ENDPOINTS && r.getLong(2) == 0;
            }
            readAt = now;
            read = true;
        }
        return byEndpoint;
    }
}

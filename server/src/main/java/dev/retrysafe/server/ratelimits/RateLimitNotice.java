package dev.retrysafe.server.ratelimits;

import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.RateLimitVersions;
import dev.retrysafe.server.db.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The 90-day rule at start ({@link RateLimitVersions#checkNotice}): each previous set's notice is
 * counted from when a server first served it, recorded once in the database, so that restarting
 * an instance close to a sunset does not refuse a notice that was long enough when given.
 */
public final class RateLimitNotice {

    private static final String FIND = "SELECT announced_at FROM rate_limit_announcements WHERE version = ?";
    private static final String INSERT = "INSERT INTO rate_limit_announcements (version, announced_at) VALUES (?, ?)";

    private RateLimitNotice() {}

    /**
     * Records the first announcement of every previous set not recorded yet (now), then applies
     * the rule.
     *
     * @throws dev.retrysafe.server.config.ConfigException when a limit goes down too soon
     */
    public static void check(RateLimitConfig limits, Transactions transactions, Clock clock) throws SQLException {
        RateLimitVersions versions = limits.versions();
        if (!limits.enabled() || versions.previous().isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        Map<String, Instant> announced = new HashMap<>();
        for (RateLimitVersions.Previous p : versions.previous()) {
            announced.put(p.version(), announcedAt(transactions, p.version(), now));
        }
        versions.checkNotice(limits.policies(), announced::get, now);
    }

    /** When {@code version} was first served; records {@code now} when it never was. */
    private static Instant announcedAt(Transactions transactions, String version, Instant now) throws SQLException {
        Instant found = transactions.inNewTransaction(c -> find(c, version));
        if (found != null) {
            return found;
        }
        try {
            transactions.inNewTransaction(c -> {
                try (PreparedStatement ps = c.prepareStatement(INSERT)) {
                    ps.setString(1, version);
                    ps.setObject(2, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
                    ps.executeUpdate();
                }
                return null;
            });
            return now;
        } catch (SQLException e) {
            // another instance recorded it first: its time counts
            Instant theirs = transactions.inNewTransaction(c -> find(c, version));
            if (theirs == null) {
                throw e;
            }
            return theirs;
        }
    }

    private static @Nullable Instant find(Connection c, String version) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(FIND)) {
            ps.setString(1, version);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getObject(1, OffsetDateTime.class).toInstant() : null;
            }
        }
    }
}

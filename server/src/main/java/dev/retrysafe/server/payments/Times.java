package dev.retrysafe.server.payments;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** Times as stored (UTC, milliseconds, so a value reads back exactly) and as shown (RFC 3339). */
final class Times {

    private Times() {}

    static Instant now(Clock clock) {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    static OffsetDateTime sql(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    static Instant read(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }

    static String rfc3339(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant);
    }
}

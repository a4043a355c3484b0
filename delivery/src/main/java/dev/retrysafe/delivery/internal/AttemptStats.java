package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.AttemptBucket;
import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.EndpointHealth;
import dev.retrysafe.leasedwork.internal.Rows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Aggregates over the attempt log of one account, each in one query that starts from the attempts'
 * start time ({@code delivery_attempts_started}), so its cost follows the attempts in the window,
 * not the whole history. Stateless and threadsafe.
 */
final class AttemptStats {

    /** Width of a bucket of {@link #perHour}. */
    static final Duration HOUR = Duration.ofHours(1);

    /**
     * Per endpoint of an account whose id lies in a range: attempts since a time, how many
     * succeeded, and the newest one (by start, then id). Params: account, low id, high id, since.
     */
    static final String HEALTH = """
            SELECT endpoint_id, COUNT(*) AS attempts,
                   SUM(CASE WHEN outcome = 'SUCCESS' THEN 1 ELSE 0 END) AS succeeded,
                   MAX(started_at) AS last_attempt_at,
                   MAX(CASE WHEN newest = 1 THEN outcome END) AS last_outcome
            FROM (SELECT d.endpoint_id, a.outcome, a.started_at,
                         ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY a.started_at DESC, a.id DESC) AS newest
                  FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                  WHERE d.account_id = ? AND d.endpoint_id >= ? AND d.endpoint_id <= ? AND a.started_at >= ?) recent
            GROUP BY endpoint_id""";

    /**
     * An account's attempts in a time range counted by hour since the epoch and outcome.
     * Params: account, from (inclusive), to (exclusive).
     */
    static final String PER_HOUR = """
            SELECT epoch_hour, outcome, COUNT(*) AS attempts
            FROM (SELECT a.started_at / 3600000 AS epoch_hour, a.outcome
                  FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                  WHERE d.account_id = ? AND a.started_at >= ? AND a.started_at < ?) recent
            GROUP BY epoch_hour, outcome""";

    private AttemptStats() {}

    /** The health of each of {@code endpointIds} (of {@code accountId}; others have none) since {@code since}. */
    static Map<String, EndpointHealth> health(
            Connection c, String accountId, Collection<String> endpointIds, Instant since) throws SQLException {
        Map<String, EndpointHealth> out = new LinkedHashMap<>();
        if (endpointIds.isEmpty()) {
            return out;
        }
        String low = endpointIds.stream().min(String::compareTo).orElseThrow();
        String high = endpointIds.stream().max(String::compareTo).orElseThrow();
        Map<String, EndpointHealth> found = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement(HEALTH)) {
            s.setString(1, accountId);
            s.setString(2, low);
            s.setString(3, high);
            s.setLong(4, since.toEpochMilli());
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    found.put(
                            r.getString("endpoint_id"),
                            new EndpointHealth(
                                    r.getLong("attempts"),
                                    r.getLong("succeeded"),
                                    Rows.millis(r, "last_attempt_at"),
                                    Outcome.valueOf(r.getString("last_outcome"))));
                }
            }
        }
        for (String id : endpointIds) {
            out.put(id, found.getOrDefault(id, EndpointHealth.NONE));
        }
        return out;
    }

    /** Every hour from {@code from} (a whole hour) on, {@code hours} of them, oldest first. */
    static List<AttemptBucket> perHour(Connection c, String accountId, Instant from, int hours) throws SQLException {
        long firstHour = from.toEpochMilli() / HOUR.toMillis();
        List<Map<Outcome, Long>> counts = new ArrayList<>(hours);
        for (int i = 0; i < hours; i++) {
            counts.add(new EnumMap<>(Outcome.class));
        }
        try (PreparedStatement s = c.prepareStatement(PER_HOUR)) {
            s.setString(1, accountId);
            s.setLong(2, from.toEpochMilli());
            s.setLong(3, from.plus(HOUR.multipliedBy(hours)).toEpochMilli());
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    int index = Math.toIntExact(r.getLong("epoch_hour") - firstHour);
                    counts.get(index).put(Outcome.valueOf(r.getString("outcome")), r.getLong("attempts"));
                }
            }
        }
        List<AttemptBucket> out = new ArrayList<>(hours);
        for (int i = 0; i < hours; i++) {
            out.add(new AttemptBucket(from.plus(HOUR.multipliedBy(i)), counts.get(i)));
        }
        return out;
    }
}

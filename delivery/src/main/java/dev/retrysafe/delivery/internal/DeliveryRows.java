package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.Delivery;
import dev.retrysafe.delivery.DeliveryAttempt;
import dev.retrysafe.delivery.DeliveryStatus;
import dev.retrysafe.delivery.DisabledReason;
import dev.retrysafe.delivery.WebhookEndpoint;
import dev.retrysafe.leasedwork.internal.Rows;
import java.net.URI;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/** Reads the module's rows into its public records. Stateless and threadsafe. */
final class DeliveryRows {

    private DeliveryRows() {}

    static WebhookEndpoint endpoint(ResultSet r, Set<String> eventTypes) throws SQLException {
        String reason = r.getString("disabled_reason");
        return new WebhookEndpoint(
                r.getString("id"),
                r.getString("account_id"),
                URI.create(r.getString("url")),
                r.getString("description"),
                eventTypes,
                r.getBoolean("enabled"),
                reason == null ? null : DisabledReason.fromWireName(reason),
                Instant.ofEpochMilli(r.getLong("created_at")),
                Instant.ofEpochMilli(r.getLong("updated_at")),
                Rows.millis(r, "failing_since"),
                Rows.millis(r, "previous_secret_expires_at"),
                Rows.integer(r, "rate_limit"),
                Rows.millis(r, "paused_at"),
                r.getBoolean("ordered"),
                CustomHeaders.names(r.getString("custom_headers")));
    }

    static Delivery delivery(ResultSet r) throws SQLException {
        String outcome = r.getString("last_outcome");
        return new Delivery(
                r.getString("id"),
                r.getString("endpoint_id"),
                r.getString("account_id"),
                r.getString("event_id"),
                r.getString("event_type"),
                DeliveryStatus.fromWireName(r.getString("status")),
                r.getInt("attempts"),
                Rows.millis(r, "next_attempt_at"),
                Instant.ofEpochMilli(r.getLong("created_at")),
                Rows.millis(r, "last_attempt_at"),
                outcome == null ? null : Outcome.valueOf(outcome),
                Rows.integer(r, "last_status_code"));
    }

    static DeliveryAttempt attempt(ResultSet r) throws SQLException {
        return new DeliveryAttempt(
                r.getString("id"),
                r.getString("delivery_id"),
                r.getInt("attempt_number"),
                Instant.ofEpochMilli(r.getLong("started_at")),
                Outcome.valueOf(r.getString("outcome")),
                Rows.integer(r, "status_code"),
                Duration.ofMillis(r.getLong("latency_ms")),
                Objects.requireNonNullElse(r.getString("response_snippet"), ""),
                Objects.requireNonNullElse(r.getString("error_detail"), ""));
    }
}

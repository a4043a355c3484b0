package dev.retrysafe.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The delivery contract on PostgreSQL; fails (never skips) when PostgreSQL is unreachable. */
class PostgresDeliveryTest extends PauseAndOrderingContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }

    /**
     * The fan-out locks an endpoint's row only when it read the endpoint as paused (to check again
     * under the lock); an open endpoint's row is not touched, so a transaction holding it (the
     * dispatcher ending a failing streak, an update) never makes a business transaction wait, and
     * the two never wait for each other in a cycle (a deadlock seen under load when every fan-out
     * took the lock).
     */
    @Test
    void fanOutToAnOpenEndpointDoesNotWaitForItsRow() throws SQLException {
        String endpoint = endpoint(ACCOUNT, URL_A, "*");
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try {
                try (PreparedStatement s =
                        holder.prepareStatement("SELECT id FROM webhook_endpoints WHERE id = ? FOR UPDATE")) {
                    s.setString(1, endpoint);
                    try (ResultSet r = s.executeQuery()) {
                        assertThat(r.next()).as("the endpoint exists").isTrue();
                    }
                }
                try (Connection tx = dataSource.getConnection()) {
                    tx.setAutoCommit(false);
                    try (var s = tx.createStatement()) {
                        s.execute("SET LOCAL lock_timeout = '2s'"); // a wait fails the append
                    }
                    outbox.append(tx, event(ACCOUNT, "payment.succeeded"));
                    tx.commit();
                    tx.setAutoCommit(true);
                }
            } finally {
                holder.rollback();
                holder.setAutoCommit(true);
            }
        }
        assertThat(onlyDelivery(ACCOUNT).status()).isEqualTo(DeliveryStatus.PENDING);
    }

    /**
     * On PostgreSQL a claim skips the rows another transaction holds (another instance claiming
     * or finishing them) instead of waiting for it: the other due deliveries go at once, and the
     * held one goes with the first claim after it is let go. A claim that waited would block here
     * until the holder ends, which the deadline turns into a failure.
     */
    @Test
    void claimSkipsADeliveryAnotherTransactionHoldsInsteadOfWaiting() throws SQLException {
        endpoint(ACCOUNT, URL_A, "*");
        String held = deliverOneEvent(ACCOUNT);
        String free = deliverOneEvent(ACCOUNT);
        Dispatcher dispatcher = dispatcher();
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try {
                try (PreparedStatement s =
                        holder.prepareStatement("SELECT id FROM deliveries WHERE id = ? FOR UPDATE")) {
                    s.setString(1, held);
                    try (ResultSet r = s.executeQuery()) {
                        assertThat(r.next()).as("the held delivery exists").isTrue();
                    }
                }

                int attempted = assertTimeoutPreemptively(
                        Duration.ofSeconds(20),
                        dispatcher::dispatchDue,
                        "a claim waited for a row another transaction holds");

                assertThat(attempted).isEqualTo(1);
                assertThat(status(free)).isEqualTo(DeliveryStatus.SUCCEEDED);
                assertThat(status(held)).isEqualTo(DeliveryStatus.PENDING);
            } finally {
                holder.rollback();
                holder.setAutoCommit(true);
            }
        }

        assertThat(dispatcher.dispatchDue()).as("the delivery once let go").isEqualTo(1);
        assertThat(status(held)).isEqualTo(DeliveryStatus.SUCCEEDED);
        assertThat(sender.sent()).extracting(FakeSender.Sent::deliveryId).containsExactly(free, held);
    }
}

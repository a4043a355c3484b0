package dev.retrysafe.leasedwork.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The lease statements the engine builds are, word for word (spacing aside), the ones delivery
 * and jobs wrote by hand before they shared the engine.
 */
class LeaseSqlTest {

    private static final LeaseSql DELIVERIES = new LeaseSql("deliveries", "delivering", "next_attempt_at", true);
    private static final LeaseSql JOBS = new LeaseSql("jobs", "running", "due_at", false);

    private static String words(String sql) {
        return sql.replaceAll("\\s+", " ").trim();
    }

    @Test
    void aDeliveryClaimIsAConditionalUpdateOnH2() {
        assertThat(words(DELIVERIES.claim("", "next_attempt_at <= ?"))).isEqualTo(words("""
                UPDATE deliveries
                SET status = 'delivering', lease_owner = ?, lease_token = ?, lease_expires_at = ?, next_attempt_at = ?
                WHERE id = ? AND next_attempt_at <= ?"""));
    }

    @Test
    void aDeliveryClaimSkipsLockedRowsOnPostgres() {
        LeaseSql.Readback readback =
                new LeaseSql.Readback("d", "webhook_endpoints e", "e.id = d.endpoint_id", "d.id, e.url", "SELECT 1");
        assertThat(words(DELIVERIES.claimSkippingLocked(readback))).isEqualTo(words("""
                UPDATE deliveries d
                SET status = 'delivering', lease_owner = ?, lease_token = ?, lease_expires_at = ?, next_attempt_at = ?
                FROM webhook_endpoints e
                WHERE e.id = d.endpoint_id
                  AND d.id IN (SELECT id FROM deliveries WHERE id = ANY (?) AND next_attempt_at <= ? FOR UPDATE SKIP LOCKED)
                RETURNING d.id, e.url"""));
    }

    @Test
    void aDeliveryIsGivenBackOrFinishedFencedByItsToken() {
        assertThat(words(DELIVERIES.endHeld("status = 'pending', next_attempt_at = ?")))
                .isEqualTo(words("""
                UPDATE deliveries
                SET status = 'pending', next_attempt_at = ?, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                WHERE id = ? AND lease_token = ? AND status = 'delivering'"""));
        assertThat(words(DELIVERIES.end("status = ?, attempts = attempts + 1"))).isEqualTo(words("""
                UPDATE deliveries
                SET status = ?, attempts = attempts + 1, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                WHERE id = ? AND lease_token = ?"""));
        assertThat(DELIVERIES.live()).isEqualTo("status = 'delivering' AND lease_expires_at > ?");
    }

    @Test
    void aJobIsClaimedTakenOverExtendedAndHandedBack() {
        String also = "started_at = ?, attempts = attempts + 1, progress = 0";
        assertThat(words(JOBS.claim(also, "status = 'queued'"))).isEqualTo(words("""
                UPDATE jobs SET status = 'running', lease_owner = ?, lease_token = ?, due_at = ?, started_at = ?,
                                attempts = attempts + 1, progress = 0
                WHERE id = ? AND status = 'queued'"""));
        assertThat(words(JOBS.takeOver(also))).isEqualTo(words("""
                UPDATE jobs SET lease_owner = ?, lease_token = ?, due_at = ?, started_at = ?, attempts = attempts + 1,
                                progress = 0
                WHERE id = ? AND lease_token = ? AND status = 'running' AND due_at <= ?"""));
        assertThat(words(JOBS.extend()))
                .isEqualTo("UPDATE jobs SET due_at = ? WHERE id = ? AND lease_token = ? AND status = 'running'");
        assertThat(words(JOBS.endHeld("status = 'queued', due_at = created_at")))
                .isEqualTo(words("""
                UPDATE jobs SET status = 'queued', due_at = created_at, lease_owner = NULL, lease_token = NULL
                WHERE id = ? AND lease_token = ? AND status = 'running'"""));
    }

    @Test
    void namesSplicedIntoSqlMustBePlainIdentifiers() {
        assertThatThrownBy(() -> new LeaseSql("jobs; DROP TABLE jobs", "running", "due_at", false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobs; DROP TABLE jobs");
        assertThatThrownBy(JOBS::live).isInstanceOf(IllegalStateException.class);
    }
}

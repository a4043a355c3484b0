package dev.retrysafe.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

/**
 * The transaction protocol with {@link ClaimMode#POSTGRES_ADVISORY_LOCKS}; fails (never skips)
 * when PostgreSQL is unreachable.
 */
class PostgresAdvisoryClaimsTest extends TransactionClaimsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.postgres();
    }

    @Override
    protected ClaimMode mode() {
        return ClaimMode.POSTGRES_ADVISORY_LOCKS;
    }

    @Test
    void aHolderWhoseConnectionDiesLetsTheKeyGoWithoutWaitingForTheLease() throws Exception {
        Connection dying = transaction();
        acquired(store.claim(dying, scope("k"), fp("a"), clock.instant(), LEASE));
        dying.close(); // no commit, no rollback, no finished(): the session ends, and its lock

        // the server ends the session a moment after the client left: wait for that, not the lease
        ClaimOutcome next = awaitClaim("k", fp("a"), o -> !(o instanceof ClaimOutcome.InFlight));
        assertThat(next).isInstanceOf(ClaimOutcome.Acquired.class);
        assertThat(strings("SELECT idem_key FROM idempotency_keys"))
                .as("nothing was written")
                .isEmpty();
    }
}

package dev.retrysafe.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.testkit.ThrowawayDatabase;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

/** The transaction protocol with {@link ClaimMode#IN_PROCESS} on H2 (the embedded database's mode). */
class H2InProcessClaimsTest extends TransactionClaimsContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("claims");
    }

    @Override
    protected ClaimMode mode() {
        return ClaimMode.IN_PROCESS;
    }

    @Test
    void aProcessThatDiedHoldsNothingAfterItsRestart() throws Exception {
        try (Connection dying = transaction()) {
            acquired(store.claim(dying, scope("k"), fp("a"), clock.instant(), LEASE));
            dying.rollback(); // the process is gone: its transaction with it, and finished() never called
        }
        store = JdbcIdempotencyStore.builder(dataSource)
                .claims(ClaimMode.IN_PROCESS)
                .build(); // the restart

        assertThat(runOnce("k", fp("a"), created("pay_1"), "effect")).isInstanceOf(ClaimOutcome.Acquired.class);
    }

    @Test
    void theClaimWithoutATransactionIsNotOffered() {
        assertThatThrownBy(() -> store.claim(scope("k"), fp("a"), clock.instant(), LEASE))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}

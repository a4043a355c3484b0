package dev.retrysafe.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.idempotency.ClaimMode;
import org.junit.jupiter.api.Test;

class ClaimModesTest {

    @Test
    void eachDatabaseGetsAModeThatNeedsOneConnectionPerRequestWhereOneExists() {
        assertThat(ClaimModes.forUrl("jdbc:postgresql://127.0.0.1:5432/shop"))
                .isEqualTo(ClaimMode.POSTGRES_ADVISORY_LOCKS);
        assertThat(ClaimModes.forUrl("jdbc:h2:mem:shop;MODE=PostgreSQL")).isEqualTo(ClaimMode.IN_PROCESS);
        assertThat(ClaimModes.forUrl("jdbc:h2:file:./data/shop;MODE=PostgreSQL"))
                .isEqualTo(ClaimMode.IN_PROCESS);
        // another process may use these: the claim must be in the database
        assertThat(ClaimModes.forUrl("jdbc:h2:tcp://127.0.0.1/shop")).isEqualTo(ClaimMode.ROWS);
        assertThat(ClaimModes.forUrl("jdbc:h2:file:./data/shop;AUTO_SERVER=TRUE"))
                .isEqualTo(ClaimMode.ROWS);
        assertThat(ClaimModes.forUrl("jdbc:mysql://127.0.0.1/shop")).isEqualTo(ClaimMode.ROWS);
    }
}

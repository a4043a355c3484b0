package dev.retrysafe.servlet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.DecisionBuffer;
import dev.retrysafe.ratelimit.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DecisionBuffersTest {

    @Test
    void lendsEachBufferToOneCallerAtATimeAndMakesMoreWhenAllAreOut() {
        DecisionBuffers pool = new DecisionBuffers(4);
        Map<DecisionBuffer, Boolean> out = new IdentityHashMap<>();
        List<DecisionBuffer> taken = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            DecisionBuffer buffer = pool.take();
            assertThat(out.put(buffer, true)).as("buffer %d is lent twice", i).isNull();
            taken.add(buffer);
        }
        taken.forEach(pool::giveBack);

        Map<DecisionBuffer, Boolean> again = new IdentityHashMap<>();
        for (int i = 0; i < 4; i++) {
            again.put(pool.take(), true);
        }
        assertThat(again).hasSize(4);
        assertThat(out.keySet()).containsAll(again.keySet()); // the pool kept four of the six, made none
    }

    @Test
    void aBufferComesBackEmptied() {
        DecisionBuffers pool = new DecisionBuffers(1);
        DecisionBuffer buffer = pool.take();
        buffer.reserve(1);
        buffer.set(
                0, Policy.builder("p").limit(1, Duration.ofSeconds(1)).build(), "acct_1", 1, 1, 0, 0, 0, true, false);

        pool.giveBack(buffer);

        DecisionBuffer next = pool.take();
        assertThat(next).isSameAs(buffer);
        assertThat(next.size()).isZero();
        assertThat(next.outcome()).isEqualTo(DecisionBuffer.Outcome.ALLOWED);
    }
}

package dev.retrysafe.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IdsTest {

    @Test
    void idsArePrefixedAndSortByTime() {
        FakeClock clock = new FakeClock();
        Ids ids = new Ids(clock);
        String earlier = ids.next("pay_");
        clock.advance(Duration.ofMillis(1));
        String later = ids.next("pay_");

        assertThat(earlier).matches("pay_[0-9a-hjkmnp-tv-z]{26}");
        assertThat(later).isGreaterThan(earlier);
        assertThat(Ids.looksLike("pay_", later)).isTrue();
        assertThat(Ids.looksLike("re_", later)).isFalse();
    }

    @Test
    void idsInTheSameMillisecondDiffer() {
        Ids ids = new Ids(new FakeClock());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            seen.add(ids.next("evt_"));
        }
        assertThat(seen).hasSize(10_000);
    }

    @Test
    void timeIsTheLeadingPartOfTheId() {
        Ids atEpochStart = new Ids(new FakeClock(java.time.Instant.EPOCH));
        assertThat(atEpochStart.next("x_")).startsWith("x_0000000000");
    }
}

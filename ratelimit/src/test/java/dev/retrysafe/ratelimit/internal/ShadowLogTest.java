package dev.retrysafe.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shadow log writes at most one line per policy per ten seconds, with the count since the last. */
class ShadowLogTest {

    private final ShadowLog log = new ShadowLog();

    @Test
    void theFirstWouldBeRefusalIsLoggedAtOnceThenOneLinePerTenSecondsWithTheCount() {
        List<String> lines = new ArrayList<>();
        long t0 = 1_767_225_600_000L;
        // 1000 would-be refusals, one every 25 ms: 25 s
        for (int i = 0; i < 1000; i++) {
            String line = log.count("trial", t0 + i * 25L);
            if (line != null) {
                lines.add(line);
            }
        }

        assertThat(lines).hasSize(3); // at 0 s, 10 s, 20 s
        assertThat(lines.get(0)).contains("'trial'").contains("would have refused 1 request(s)");
        assertThat(lines.get(1)).contains("would have refused 400 request(s)");
        assertThat(lines.get(2)).contains("would have refused 400 request(s)");
    }

    @Test
    void policiesHaveLinesOfTheirOwnAndAClockSteppedBackDoesNotSilenceOne() {
        long t0 = 1_767_225_600_000L;
        assertThat(log.count("a", t0)).isNotNull();
        assertThat(log.count("b", t0)).isNotNull();
        assertThat(log.count("a", t0 + 1_000)).isNull();
        assertThat(log.count("a", t0 - 60_000)).contains("would have refused 2 request(s)");
    }
}

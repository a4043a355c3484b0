package dev.retrysafe.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The shared ticker: close to the system clock, never ahead of it, and gone when unused. */
class CoarseClockTest {

    @Test
    void readsTheSystemClockAtMillisecondResolutionNeverAheadOfIt() {
        for (int i = 0; i < 1_000; i++) {
            long before = System.currentTimeMillis() * 1000L;
            long now = CoarseClock.nowMicros();
            long after = System.currentTimeMillis() * 1000L;

            assertThat(now % 1000).as("whole milliseconds").isZero();
            assertThat(now).as("never ahead of the system clock").isLessThanOrEqualTo(after);
            // a tick in theory; a generous bound for a loaded build machine that deschedules the ticker
            assertThat(before - now).as("lag in microseconds").isLessThan(1_000_000);
        }
    }

    @Test
    void advancesWithTheSystemClock() {
        long first = CoarseClock.nowMicros();

        await().atMost(Duration.ofSeconds(10)).until(() -> CoarseClock.nowMicros() >= first + 20_000);
    }

    @Test
    void theTickerIsADaemonThatStopsWhenNobodyReadsAndRestartsOnTheNextRead() {
        CoarseClock.nowMicros();
        await().atMost(Duration.ofSeconds(10)).until(() -> tickerThreads() == 1);
        assertThat(Thread.getAllStackTraces().keySet())
                .filteredOn(t -> t.getName().equals(CoarseClock.THREAD_NAME))
                .allMatch(Thread::isDaemon);

        // no reads for about a second (IDLE_TICKS): the ticker goes
        await().atMost(Duration.ofSeconds(20)).until(() -> !CoarseClock.ticking() && tickerThreads() == 0);

        long before = System.currentTimeMillis() * 1000L;
        assertThat(CoarseClock.nowMicros())
                .as("read while stopped: the system clock")
                .isGreaterThanOrEqualTo(before);
        await().atMost(Duration.ofSeconds(10)).until(() -> tickerThreads() == 1);
    }

    private static long tickerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(CoarseClock.THREAD_NAME) && t.isAlive())
                .count();
    }
}

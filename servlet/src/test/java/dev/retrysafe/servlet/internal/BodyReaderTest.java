package dev.retrysafe.servlet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.servlet.ReadDeadlines;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The body reader's bounds, on a fake stream and a fake clock: no server, no waiting. */
class BodyReaderTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong(1_000 * SECOND);
    private final List<Long> deadlines = new ArrayList<>();
    private final ReadDeadlines.Deadline recording = new ReadDeadlines.Deadline() {
        @Override
        public void within(long nanos) {
            deadlines.add(nanos);
        }

        @Override
        public void close() {}
    };

    private BodySettings settings(int max, Duration timeout, long minRate, Duration grace, long buffered) {
        return new BodySettings(
                max,
                timeout.toNanos(),
                minRate,
                grace.toNanos(),
                buffered,
                ReadDeadlines.NONE,
                reason -> {},
                now::get,
                "/problems/");
    }

    @Test
    void theBufferGrowsWithTheBytesThatArriveNotWithADeclaredLength() {
        BufferBudget budget = new BufferBudget(10L * 1024 * 1024);
        BodyReader reader =
                new BodyReader(settings(1024 * 1024, Duration.ofSeconds(30), 0, Duration.ZERO, budget.limit()), budget);

        BodyReader.Outcome outcome = reader.read(new ByteArrayInputStream(new byte[10]), recording, now.get());

        assertThat(outcome).isInstanceOf(BodyReader.Read.class);
        assertThat(((BodyReader.Read) outcome).body()).hasSize(10);
        assertThat(reader.taken())
                .as("one small first buffer for a 1 MiB limit")
                .isEqualTo(BodyReader.INITIAL_BUFFER);
    }

    @Test
    void growthDoublesUpToOneByteOverTheLimitAndEveryGrowthIsTaken() {
        BufferBudget budget = new BufferBudget(1 << 20);
        BodyReader reader =
                new BodyReader(settings(5000, Duration.ofSeconds(30), 0, Duration.ZERO, budget.limit()), budget);

        BodyReader.Outcome outcome = reader.read(new ByteArrayInputStream(new byte[4000]), recording, now.get());

        assertThat(((BodyReader.Read) outcome).body()).hasSize(4000);
        assertThat(reader.taken()).isEqualTo(4096); // 512, 1024, 2048, 4096
        assertThat(budget.used()).isEqualTo(4096);
        assertThat(new BodyReader(settings(5000, Duration.ofSeconds(30), 0, Duration.ZERO, budget.limit()), budget)
                        .read(new ByteArrayInputStream(new byte[5001]), recording, now.get()))
                .isInstanceOf(BodyReader.TooLarge.class);
    }

    @Test
    void aGrowthTheBudgetCannotGrantIsBusy() {
        BufferBudget budget = new BufferBudget(5001);
        assertThat(budget.tryTake(4000)).isTrue();
        BodyReader reader = new BodyReader(settings(5000, Duration.ofSeconds(30), 0, Duration.ZERO, 5001), budget);

        BodyReader.Outcome outcome = reader.read(new ByteArrayInputStream(new byte[1000]), recording, now.get());

        assertThat(outcome).isInstanceOf(BodyReader.Busy.class);
        assertThat(reader.taken()).as("512 granted, 1024 refused").isEqualTo(512);
    }

    @Test
    void eachReadIsGivenTheTimeLeftAndABodyPastItsDeadlineTimesOut() {
        BufferBudget budget = new BufferBudget(1 << 20);
        BodyReader reader =
                new BodyReader(settings(5000, Duration.ofSeconds(10), 0, Duration.ZERO, budget.limit()), budget);
        long start = now.get();
        // one byte per read, four seconds apart
        InputStream slow = new InputStream() {
            @Override
            public int read() {
                throw new AssertionError("not used");
            }

            @Override
            public int read(byte[] b, int off, int len) {
                now.addAndGet(4 * SECOND);
                b[off] = '{';
                return 1;
            }
        };

        BodyReader.Outcome outcome = reader.read(slow, recording, start);

        assertThat(outcome).isEqualTo(new BodyReader.TimedOut(3));
        assertThat(deadlines).containsExactly(10 * SECOND, 6 * SECOND, 2 * SECOND);
    }

    @Test
    void fromTheGraceOnTheBodyMustKeepTheMinimumRate() {
        BufferBudget budget = new BufferBudget(1 << 20);
        // 100 bytes per second after 2 s: 50 bytes buy half a second more
        BodyReader reader = new BodyReader(
                settings(5000, Duration.ofSeconds(30), 100, Duration.ofSeconds(2), budget.limit()), budget);
        long start = now.get();

        assertThat(reader.deadlineAfter(start, 0)).isEqualTo(start + 2 * SECOND);
        assertThat(reader.deadlineAfter(start, 50)).isEqualTo(start + 2 * SECOND + SECOND / 2);
        assertThat(reader.deadlineAfter(start, 1_000_000))
                .as("never past the whole deadline")
                .isEqualTo(start + 30 * SECOND);
    }

    @Test
    void aReadEndedByATimeoutTimesOutAndAnyOtherFailureIsBroken() {
        BufferBudget budget = new BufferBudget(1 << 20);
        BodySettings s = settings(5000, Duration.ofSeconds(30), 0, Duration.ZERO, budget.limit());

        assertThat(new BodyReader(s, budget)
                        .read(
                                failing(new IOException(new TimeoutException("Idle timeout expired"))),
                                recording,
                                now.get()))
                .isEqualTo(new BodyReader.TimedOut(0));
        EOFException early = new EOFException("Early EOF");
        assertThat(new BodyReader(s, budget).read(failing(early), recording, now.get()))
                .isEqualTo(new BodyReader.Broken(early));
    }

    @Test
    void settingsNameWhatIsWrong() {
        assertThatThrownBy(() -> settings(5000, Duration.ZERO, 0, Duration.ZERO, 10_000))
                .hasMessageContaining("bodyTimeout");
        assertThatThrownBy(() -> settings(5000, Duration.ofSeconds(1), -1, Duration.ZERO, 10_000))
                .hasMessageContaining("minBodyRate");
        assertThatThrownBy(() -> settings(5000, Duration.ofSeconds(1), 0, Duration.ZERO, 5000))
                .hasMessageContaining("maxBufferedBytes");
    }

    private static InputStream failing(IOException failure) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                throw failure;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                throw failure;
            }
        };
    }
}

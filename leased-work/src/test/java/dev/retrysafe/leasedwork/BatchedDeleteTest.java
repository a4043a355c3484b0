package dev.retrysafe.leasedwork;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.leasedwork.BatchedDelete.Step;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The purge loop over a list standing in for a table: batches, cursors, the end, interruption. */
class BatchedDeleteTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void runsBatchesFromEachCursorUntilOneReadsFewerThanItsSize() throws Exception {
        List<Integer> rows = new ArrayList<>(List.of(1, 2, 3, 4, 5, 6, 7));
        List<Integer> starts = new ArrayList<>();

        long deleted = BatchedDelete.<Integer, RuntimeException>run("test purge", after -> {
            int from = after == null ? 0 : after;
            starts.add(from);
            List<Integer> chunk = rows.stream().filter(r -> r > from).limit(3).toList();
            // the odd rows are old: deleted; the even ones are read and passed over
            long gone = chunk.stream().filter(r -> r % 2 == 1).count();
            return Step.of(gone, chunk.size(), 3, chunk.isEmpty() ? null : chunk.getLast());
        });

        assertThat(deleted).isEqualTo(4);
        assertThat(starts).containsExactly(0, 3, 6);
    }

    @Test
    void aFullLastBatchIsFollowedByAnEmptyOne() throws Exception {
        List<Integer> calls = new ArrayList<>();

        long deleted = BatchedDelete.<String, RuntimeException>run("test purge", after -> {
            calls.add(calls.size());
            return calls.size() == 1 ? Step.of(2, 2, 2, "b") : Step.of(0, 0, 2, null);
        });

        assertThat(deleted).isEqualTo(2);
        assertThat(calls).hasSize(2);
    }

    @Test
    void stopsBetweenBatchesWhenInterruptedKeepingWhatWasDone() {
        List<String> done = new ArrayList<>();

        assertThatThrownBy(() -> BatchedDelete.<String, RuntimeException>run("test purge", after -> {
                    done.add("batch");
                    Thread.currentThread().interrupt();
                    return Step.of(1, 1, 1, "x");
                }))
                .isInstanceOf(InterruptedException.class)
                .hasMessage("test purge interrupted");
        assertThat(done).hasSize(1);
    }

    @Test
    void aBatchsFailureEndsTheRunAsItsOwn() {
        assertThatThrownBy(() -> BatchedDelete.<String, IOException>run("test purge", after -> {
                    throw new IOException("database gone");
                }))
                .isInstanceOf(IOException.class)
                .hasMessage("database gone");
    }
}

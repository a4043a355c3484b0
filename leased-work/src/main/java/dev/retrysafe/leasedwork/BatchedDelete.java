package dev.retrysafe.leasedwork;

import org.jspecify.annotations.Nullable;

/**
 * The loop of a retention purge, written once for every table that has one (webhook attempts,
 * deliveries, ordering keys, the server's events): run a batch, which deletes at most its size of
 * old rows by primary key in a short transaction of its own, then the next one from where it
 * stopped, until a batch reads fewer rows than its size. Short transactions keep the purge from
 * holding up the work that writes the same tables; the loop ends because every batch moves on
 * (a keyset cursor, or rows that are gone once deleted). Between batches it stops if the thread
 * is interrupted; what was committed stays deleted. Stateless and threadsafe.
 *
 * <pre>{@code
 * long purged = BatchedDelete.run("event purge", after -> transactions.inNewTransaction(c -> batch(c, after)));
 * }</pre>
 */
public final class BatchedDelete {

    private BatchedDelete() {}

    /**
     * One batch of a purge.
     *
     * @param <C> where a batch stops and the next one starts
     * @param <X> what a batch may throw
     */
    @FunctionalInterface
    public interface Batch<C, X extends Exception> {
        /**
         * Deletes at most one batch of rows after {@code after} (null: from the start) in a
         * transaction of its own, committed before it returns.
         */
        Step<C> run(@Nullable C after) throws X;
    }

    /**
     * What one batch did.
     *
     * @param deleted rows it deleted
     * @param next    where the next batch starts; null if this was the last
     * @param <C>     the cursor's type
     */
    public record Step<C>(long deleted, @Nullable C next) {

        /**
         * A batch that read {@code read} rows of at most {@code size} and stopped at {@code last}:
         * the last batch if it read fewer than {@code size}.
         */
        public static <C> Step<C> of(long deleted, int read, int size, @Nullable C last) {
            return new Step<>(deleted, read < size ? null : last);
        }
    }

    /**
     * Runs {@code batch} from the start until a batch is the last; answers the rows deleted.
     *
     * @param what names the purge in the message of an interruption
     * @throws InterruptedException if the thread is interrupted between two batches
     */
    public static <C, X extends Exception> long run(String what, Batch<C, X> batch) throws X, InterruptedException {
        long deleted = 0;
        @Nullable C after = null;
        while (true) {
            Step<C> step = batch.run(after);
            deleted += step.deleted();
            if (step.next() == null) {
                return deleted;
            }
            after = step.next();
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException(what + " interrupted");
            }
        }
    }
}

package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.JobMetrics;
import dev.retrysafe.jobs.JobStatus;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/** The counters behind {@link JobMetrics}. Threadsafe. */
final class Counters implements JobMetrics {

    private final LongAdder succeeded = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder canceled = new LongAdder();
    private final LongAdder takeovers = new LongAdder();
    private final IntSupplier running;

    Counters(IntSupplier running) {
        this.running = running;
    }

    /** Counts a job this instance recorded in final state {@code status}. */
    void finished(JobStatus status) {
        switch (status) {
            case SUCCEEDED -> succeeded.increment();
            case FAILED -> failed.increment();
            case CANCELED -> canceled.increment();
            default -> throw new IllegalArgumentException("not a final status: " + status);
        }
    }

    /** Counts a job taken over after its lease ran out. */
    void tookOver() {
        takeovers.increment();
    }

    @Override
    public long succeeded() {
        return succeeded.sum();
    }

    @Override
    public long failed() {
        return failed.sum();
    }

    @Override
    public long canceled() {
        return canceled.sum();
    }

    @Override
    public long leaseExpiredRetries() {
        return takeovers.sum();
    }

    @Override
    public long running() {
        return running.getAsInt();
    }

    @Override
    public String toString() {
        return "JobMetrics[succeeded=" + succeeded() + ", failed=" + failed() + ", canceled=" + canceled()
                + ", leaseExpiredRetries=" + leaseExpiredRetries() + ", running=" + running() + "]";
    }
}

package dev.retrysafe.jobs;

/**
 * Counters of one {@link Jobs} instance since it was built, for an application to export. A job
 * counts where its final state was recorded. Threadsafe; reads are not one atomic snapshot.
 */
public interface JobMetrics {

    /** Jobs this instance's workers completed with a result. */
    long succeeded();

    /** Jobs this instance recorded as failed: handler failures and jobs out of workers. */
    long failed();

    /** Jobs this instance recorded as canceled: queued ones canceled here and running ones stopped here. */
    long canceled();

    /** Running jobs whose lease had run out that this instance took over (a lost worker's retry). */
    long leaseExpiredRetries();

    /** Jobs this instance runs now. */
    long running();
}

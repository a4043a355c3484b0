package dev.retrysafe.jobs;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Told of every job that reaches a final state, inside the transaction that records it, so it can
 * write its own rows (an outbox event, say) atomically with the job's change. Called on every
 * path: a worker's success or failure, a cancel of a queued job, a cancel seen at a checkpoint, a
 * job failed after losing too many workers. Must be threadsafe.
 */
@FunctionalInterface
public interface JobListener {

    /**
     * Called once per job, in the transaction that makes it final. If it throws, the transaction
     * rolls back and the job's change does not happen: a cancel fails with the exception, and a
     * worker's completion is abandoned to its lease, so the job runs again once the lease ran out.
     *
     * @param transaction the open transaction; do not commit, roll back or close it
     * @param job         the job in its final state
     */
    void finished(Connection transaction, Job job) throws SQLException;
}

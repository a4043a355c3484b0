package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobCanceledException;
import dev.retrysafe.jobs.JobContext;
import dev.retrysafe.jobs.JobLeaseLostException;
import dev.retrysafe.jobs.JobObserver;
import dev.retrysafe.leasedwork.internal.Checks;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One run of one job under one claim: the handler's {@link JobContext}, and the state its worker,
 * the heartbeat and {@code close()} share. Who ends a run is decided once ({@link Phase}): the
 * worker moves it to {@code COMPLETING} to record an outcome, or {@code close()} moves it to
 * {@code ABANDONED} to hand the claim back, never both. Threadsafe.
 */
final class Execution implements JobContext {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.jobs.Jobs");

    /** Who owns the end of the run. */
    enum Phase {
        /** The handler (or its result writer) runs. */
        RUNNING,
        /** The worker records the outcome. */
        COMPLETING,
        /** {@code close()} took the run away; the worker records nothing. */
        ABANDONED
    }

    private final Job job;
    private final String token;
    private final boolean takeover;
    private final LeaseStore store;
    private final Clock clock;
    private final JobObserver observer;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.RUNNING);
    private volatile boolean cancelRequested;
    private volatile boolean leaseLost;
    private volatile boolean cancelSeen;
    private int storedProgress;

    Execution(Job job, String token, boolean takeover, LeaseStore store, Clock clock, JobObserver observer) {
        this.job = job;
        this.observer = observer;
        this.token = token;
        this.takeover = takeover;
        this.store = store;
        this.clock = clock;
        this.cancelRequested = job.cancelRequested();
        this.storedProgress = job.progress();
    }

    @Override
    public Job job() {
        return job;
    }

    @Override
    public void progress(int percent) {
        Checks.range("percent", percent, 0, 100);
        checkpoint();
        if (percent > storedProgress) {
            try {
                switch (store.progress(job.id(), token, percent)) {
                    case HELD -> storedProgress = percent;
                    case CANCEL_REQUESTED -> {
                        storedProgress = percent;
                        cancelRequested = true;
                    }
                    case LOST -> leaseLost = true;
                }
                if (!leaseLost) {
                    Observers.tell(observer, Observers.withProgress(job, percent));
                }
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "job " + job.id() + ": storing progress " + percent + "% failed; the job goes on",
                        e);
            }
        }
        checkpoint();
    }

    @Override
    public void checkpoint() {
        if (leaseLost || phase.get() == Phase.ABANDONED) {
            throw new JobLeaseLostException();
        }
        if (cancelRequested) {
            cancelSeen = true;
            throw new JobCanceledException();
        }
    }

    @Override
    public boolean cancelRequested() {
        return cancelRequested;
    }

    @Override
    public Clock clock() {
        return clock;
    }

    /** The claim's lease token. */
    String token() {
        return token;
    }

    /** Whether the claim took the job over from a lost worker. */
    boolean takeover() {
        return takeover;
    }

    /** Whether a checkpoint threw {@link JobCanceledException} in this run. */
    boolean cancelSeen() {
        return cancelSeen;
    }

    /** Records that a cancel was requested (by a heartbeat, or by a cancel through this instance). */
    void requestCancel() {
        cancelRequested = true;
    }

    /** Records that another worker took the claim over. */
    void loseLease() {
        leaseLost = true;
    }

    /** Whether the claim is known to be lost. */
    boolean leaseLost() {
        return leaseLost;
    }

    /** The worker's move: true if it may record the outcome (close did not take the run away). */
    boolean beginCompleting() {
        return phase.compareAndSet(Phase.RUNNING, Phase.COMPLETING);
    }

    /** Close's move: true if the run is taken away from its worker, which will record nothing. */
    boolean abandon() {
        return phase.compareAndSet(Phase.RUNNING, Phase.ABANDONED);
    }

    /** Who owns the end of the run now. */
    Phase phase() {
        return phase.get();
    }
}

package dev.retrysafe.jobs;

import java.time.Clock;

/**
 * What a running handler can see and do. Its methods are meant for the handler's own thread; the
 * cancel and lease flags they read are refreshed by heartbeats, by {@link #progress(int)} and,
 * for a cancel made through the same {@link Jobs} instance, at once.
 */
public interface JobContext {

    /** The job as claimed ({@link Job#attempts()} already counts this claim). */
    Job job();

    /**
     * Stores how far the job is (monotonic: a value below the stored one is ignored), then acts
     * as a {@link #checkpoint()}. A failure to store progress is logged and does not stop the job.
     *
     * @param percent 0 to 100
     * @throws IllegalArgumentException if {@code percent} is out of range
     * @throws JobCanceledException     if a cancel was requested
     * @throws JobLeaseLostException    if another worker took the job over
     */
    void progress(int percent);

    /**
     * A safe place to stop: throws if the job should not go on. Handlers call it between units of
     * work and let its exceptions propagate.
     *
     * @throws JobCanceledException  if a cancel was requested
     * @throws JobLeaseLostException if this worker's lease was taken over (or handed back on close)
     */
    void checkpoint();

    /** Whether a cancel was requested, as last seen; does not throw. */
    boolean cancelRequested();

    /** The clock of the {@link Jobs} instance (wall time, injected in tests). */
    Clock clock();
}

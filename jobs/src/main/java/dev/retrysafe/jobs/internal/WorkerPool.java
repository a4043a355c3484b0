package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.jobs.internal.JobsConfig.Registration;
import dev.retrysafe.jobs.internal.LeaseStore.Claim;
import dev.retrysafe.jobs.internal.LeaseStore.Lease;
import dev.retrysafe.jobs.internal.LeaseStore.LeaseState;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This instance's workers: claim rounds, one thread per running job, heartbeats, and handing
 * claims back on close. At most {@code workers} jobs run at once. Threadsafe.
 */
final class WorkerPool {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.jobs.Jobs");
    /** How long a close waits for interrupted handlers before handing their claims back. */
    private static final Duration ABANDON_GRACE = Duration.ofSeconds(2);
    /** Most jobs one round ends for running out of workers, per kind. */
    private static final int EXHAUSTED_BATCH = 100;

    private final JobsConfig config;
    private final LeaseStore leases;
    private final JobRunner runner;
    private final Counters counters;
    private final ThreadFactory threads;
    private final Runnable workerFreed;
    private final Semaphore workers;
    private final List<String> kinds;
    private final AtomicInteger rotation = new AtomicInteger();
    private final Set<String> kindRows = ConcurrentHashMap.newKeySet();
    /** Runs of this instance by lease token (an instance may take its own lost job over). */
    private final Map<String, Execution> running;
    /** Serializes claim rounds (the loop and {@code runDue()}). */
    private final ReentrantLock roundLock = new ReentrantLock();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private boolean stopped;

    WorkerPool(JobsConfig config, Counters counters, Map<String, Execution> running, Runnable workerFreed) {
        this.config = config;
        this.leases = new LeaseStore(config.dataSource(), config.listener());
        this.runner = new JobRunner(config, leases, counters);
        this.counters = counters;
        this.threads = config.threadFactory();
        this.running = running;
        this.workerFreed = workerFreed;
        this.workers = new Semaphore(config.workers());
        this.kinds = List.copyOf(config.handlers().keySet());
    }

    private Instant now() {
        return Instant.ofEpochMilli(config.clock().millis());
    }

    /** Whether a worker is free. */
    boolean hasFreeWorker() {
        return workers.availablePermits() > 0;
    }

    /**
     * Ends the jobs out of workers, then claims jobs of every kind this instance runs (kinds in
     * turn, so none starves another of workers) and starts them. Returns the runs started; none
     * once stopped.
     */
    List<Execution> claimRound() {
        roundLock.lock();
        try {
            if (stopped) {
                return List.of();
            }
            List<Execution> started = new ArrayList<>();
            int free = workers.drainPermits();
            try {
                int first = Math.floorMod(rotation.getAndIncrement(), Math.max(1, kinds.size()));
                for (int i = 0; i < kinds.size(); i++) {
                    String kind = kinds.get((first + i) % kinds.size());
                    try {
                        endExhausted(kind);
                        if (free > 0) {
                            for (Claim claim : claim(kind, free)) {
                                started.add(launch(claim, config.handlers().get(kind)));
                                free--;
                            }
                        }
                    } catch (RuntimeException e) {
                        // one kind's trouble (its listener, a conflict) must not stop the others
                        LOG.log(Level.WARNING, "jobs " + config.instanceId() + ": claiming jobs of kind " + kind
                                + " failed", e);
                    }
                }
            } finally {
                workers.release(free);
            }
            return started;
        } finally {
            roundLock.unlock();
        }
    }

    /** Ends this kind's jobs out of workers, each on its own: a failing listener holds up only its job. */
    private void endExhausted(String kind) {
        for (LeaseStore.Exhausted exhausted : leases.exhausted(kind, now(), EXHAUSTED_BATCH)) {
            try {
                leases.endExhausted(exhausted, now()).ifPresent(job -> {
                    counters.finished(job.status());
                    Observers.tell(config.observer(), job);
                    LOG.log(Level.INFO, "jobs {0}: job {1} {2} after its lease ran out ({3} attempt(s))",
                            config.instanceId(), job.id(), job.status().wireName(), job.attempts());
                });
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "jobs " + config.instanceId() + ": ending job " + exhausted.id()
                        + " after its lease ran out failed (database or listener); trying again next round", e);
            }
        }
    }

    private List<Claim> claim(String kind, int free) {
        if (!leases.hasDue(kind, now())) {
            return List.of(); // nothing due: no lock taken
        }
        if (kindRows.add(kind)) {
            try {
                leases.ensureKind(kind);
            } catch (RuntimeException e) {
                kindRows.remove(kind);
                throw e;
            }
        }
        return leases.claim(kind, config.handlers().get(kind).maxConcurrency(), free, config.instanceId(), now(),
                config.lease());
    }

    private Execution launch(Claim claim, Registration registration) {
        Execution execution = new Execution(claim.job(), claim.token(), leases, config.clock(), config.observer());
        Thread worker = threads.newThread(() -> work(execution, registration));
        if (worker == null) {
            throw new IllegalStateException("the thread factory of jobs " + config.instanceId() + " made no thread");
        }
        execution.thread(worker);
        running.put(claim.token(), execution);
        // told before the worker starts, so that its progress and end come after its claim
        Observers.tell(config.observer(), claim.job());
        try {
            worker.start();
        } catch (RuntimeException | Error e) {
            running.remove(claim.token()); // the claim is left to its lease
            throw e;
        }
        if (claim.takeover()) {
            counters.tookOver();
        }
        return execution;
    }

    private void work(Execution execution, Registration registration) {
        try {
            runner.run(execution, registration);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "jobs " + config.instanceId() + ": worker of job " + execution.job().id()
                    + " failed unexpectedly; the job is left to its lease", e);
        } finally {
            running.remove(execution.token());
            workers.release();
            execution.done().complete(null);
            lock.lock();
            try {
                idle.signalAll();
            } finally {
                lock.unlock();
            }
            workerFreed.run();
        }
    }

    /** Extends the leases of the runs here and refreshes their cancel flags. */
    void heartbeat() {
        List<Lease> held = new ArrayList<>();
        Map<Lease, Execution> byLease = new HashMap<>();
        for (Execution execution : running.values()) {
            // a run recording its outcome holds its row locked until it commits (a large result
            // takes a while): extending it would stall this heartbeat, and no one can take it over
            if (execution.phase() == Execution.Phase.RUNNING && !execution.leaseLost()) {
                Lease lease = new Lease(execution.job().id(), execution.token());
                held.add(lease);
                byLease.put(lease, execution);
            }
        }
        leases.extend(held, now().plus(config.lease())).forEach((lease, state) -> {
            Execution execution = byLease.get(lease);
            if (state == LeaseState.CANCEL_REQUESTED) {
                execution.requestCancel();
            } else if (state == LeaseState.LOST) {
                execution.loseLease();
                LOG.log(Level.INFO, "jobs {0}: the lease of job {1} was taken over; its run here will be discarded",
                        config.instanceId(), lease.id());
            }
        });
    }

    /** Tells the runs of job {@code id} here that a cancel was requested. */
    void requestCancel(String id) {
        for (Execution execution : running.values()) {
            if (execution.job().id().equals(id)) {
                execution.requestCancel();
            }
        }
    }

    /** Claims nothing more; returns once a round under way has started its jobs. */
    void stopClaiming() {
        roundLock.lock();
        try {
            stopped = true;
        } finally {
            roundLock.unlock();
        }
    }

    /** Waits up to {@code timeout} until no job runs here; whether none does. */
    boolean awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (!running.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                idle.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return running.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the runs still under way away from their handlers (which then record nothing),
     * interrupts them, waits briefly for them to stop, and hands their claims back: queued again
     * with the attempt not counted, or canceled if a cancel was requested. Runs whose outcome is
     * being recorded are left to finish.
     */
    void abandonRunning() {
        List<Execution> abandoned = new ArrayList<>();
        for (Execution execution : running.values()) {
            if (execution.abandon()) {
                abandoned.add(execution);
                execution.interrupt();
            }
        }
        awaitDone(abandoned, ABANDON_GRACE);
        for (Execution execution : abandoned) {
            handBack(execution);
        }
        if (!awaitIdle(ABANDON_GRACE)) {
            LOG.log(Level.WARNING, "jobs {0}: {1} job(s) still running after close; their handlers ignore interrupts",
                    config.instanceId(), running.size());
        }
    }

    private void handBack(Execution execution) {
        try {
            LeaseStore.Released released = leases.release(execution.job().id(), execution.token(), now());
            switch (released.release()) {
                case REQUEUED -> LOG.log(Level.INFO, "jobs {0}: job {1} handed back on close",
                        config.instanceId(), execution.job().id());
                case CANCELED -> counters.finished(JobStatus.CANCELED);
                case GONE -> {
                    // taken over or ended meanwhile: nothing to give back
                }
            }
            if (released.job() != null) {
                Observers.tell(config.observer(), released.job());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "jobs " + config.instanceId() + ": handing job " + execution.job().id()
                    + " back failed; another instance takes it over when its lease runs out", e);
        }
    }

    private static void awaitDone(List<Execution> executions, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Execution execution : executions) {
            try {
                execution.done().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

package dev.retrysafe.jobs.internal;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.jobs.internal.JobsConfig.Registration;
import dev.retrysafe.jobs.internal.LeaseStore.Claim;
import dev.retrysafe.jobs.internal.LeaseStore.Lease;
import dev.retrysafe.jobs.internal.LeaseStore.LeaseState;
import dev.retrysafe.leasedwork.internal.LeasedWork;
import dev.retrysafe.leasedwork.internal.WorkLoop;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The jobs' leased work, run by the engine's {@link WorkLoop}: claim rounds over every kind this
 * instance runs, one run per claimed job, heartbeats, and handing claims back on close. Threadsafe.
 */
final class JobWork implements LeasedWork<Execution> {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.jobs.Jobs");
    /** How long a close waits for interrupted handlers before handing their claims back. */
    private static final Duration ABANDON_GRACE = Duration.ofSeconds(2);
    /** Most jobs one round ends for running out of workers, per kind. */
    private static final int EXHAUSTED_BATCH = 100;

    private final JobsConfig config;
    private final LeaseStore leases;
    private final JobRunner runner;
    private final Counters counters;
    private final Supplier<WorkLoop<Execution>> loop;
    private final List<String> kinds;
    private final AtomicInteger rotation = new AtomicInteger();
    private final Set<String> kindRows = ConcurrentHashMap.newKeySet();

    JobWork(JobsConfig config, Counters counters, Supplier<WorkLoop<Execution>> loop) {
        this.config = config;
        this.leases = new LeaseStore(config.dataSource(), config.listener());
        this.runner = new JobRunner(config, leases, counters);
        this.counters = counters;
        this.loop = loop;
        this.kinds = List.copyOf(config.handlers().keySet());
    }

    private Instant now() {
        return Instant.ofEpochMilli(config.clock().millis());
    }

    /**
     * Ends the jobs out of workers, then claims jobs of every kind this instance runs (kinds in
     * turn, so none starves another of workers), at most {@code room} in all.
     */
    @Override
    public Claims<Execution> claim(int room) {
        List<Execution> claimed = new ArrayList<>();
        int free = room;
        int first = Math.floorMod(rotation.getAndIncrement(), Math.max(1, kinds.size()));
        for (int i = 0; i < kinds.size(); i++) {
            String kind = kinds.get((first + i) % kinds.size());
            try {
                endExhausted(kind);
                if (free > 0) {
                    for (Claim claim : claim(kind, free)) {
                        claimed.add(new Execution(
                                claim.job(),
                                claim.token(),
                                claim.takeover(),
                                leases,
                                config.clock(),
                                config.observer()));
                        free--;
                    }
                }
            } catch (RuntimeException e) {
                // one kind's trouble (its listener, a conflict) must not stop the others
                LOG.log(
                        Level.WARNING,
                        "jobs " + config.instanceId() + ": claiming jobs of kind " + kind + " failed",
                        e);
            }
        }
        return new Claims<>(claimed, false);
    }

    /** Ends this kind's jobs out of workers, each on its own: a failing listener holds up only its job. */
    private void endExhausted(String kind) {
        for (LeaseStore.Exhausted exhausted : leases.exhausted(kind, now(), EXHAUSTED_BATCH)) {
            try {
                leases.endExhausted(exhausted, now()).ifPresent(job -> {
                    counters.finished(job.status());
                    Observers.tell(config.observer(), job);
                    LOG.log(
                            Level.INFO,
                            "jobs {0}: job {1} {2} after its lease ran out ({3} attempt(s))",
                            config.instanceId(),
                            job.id(),
                            job.status().wireName(),
                            job.attempts());
                });
            } catch (RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "jobs " + config.instanceId() + ": ending job " + exhausted.id()
                                + " after its lease ran out failed (database or listener); trying again next round",
                        e);
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
        return leases.claim(
                kind, config.handlers().get(kind).maxConcurrency(), free, config.instanceId(), now(), config.lease());
    }

    /** Told before the worker starts, so that its progress and end come after its claim. */
    @Override
    public void starting(Execution execution) {
        Observers.tell(config.observer(), execution.job());
        if (execution.takeover()) {
            counters.tookOver();
        }
    }

    @Override
    public void run(Execution execution) {
        Registration registration = config.handlers().get(execution.job().kind());
        try {
            runner.run(execution, registration);
        } catch (RuntimeException e) {
            LOG.log(
                    Level.ERROR,
                    "jobs " + config.instanceId() + ": worker of job "
                            + execution.job().id() + " failed unexpectedly; the job is left to its lease",
                    e);
        }
    }

    /** Extends the leases of the runs here and refreshes their cancel flags. */
    void heartbeat() {
        List<Lease> held = new ArrayList<>();
        Map<Lease, Execution> byLease = new HashMap<>();
        for (Execution execution : loop.get().running()) {
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
                LOG.log(
                        Level.INFO,
                        "jobs {0}: the lease of job {1} was taken over; its run here will be discarded",
                        config.instanceId(),
                        lease.id());
            }
        });
    }

    /** Tells the runs of job {@code id} here that a cancel was requested. */
    void requestCancel(String id) {
        for (Execution execution : loop.get().running()) {
            if (execution.job().id().equals(id)) {
                execution.requestCancel();
            }
        }
    }

    /**
     * Takes the runs still under way away from their handlers (which then record nothing),
     * interrupts them, waits briefly for them to stop, and hands their claims back: queued again
     * with the attempt not counted, or canceled if a cancel was requested. Runs whose outcome is
     * being recorded are left to finish.
     */
    @Override
    public void abandon(List<WorkLoop.Worker<Execution>> stillRunning) {
        List<WorkLoop.Worker<Execution>> abandoned = new ArrayList<>();
        for (WorkLoop.Worker<Execution> worker : stillRunning) {
            if (worker.claim().abandon()) {
                abandoned.add(worker);
                worker.interrupt();
            }
        }
        awaitDone(abandoned, ABANDON_GRACE);
        for (WorkLoop.Worker<Execution> worker : abandoned) {
            handBack(worker.claim());
        }
        if (!loop.get().awaitIdle(ABANDON_GRACE)) {
            LOG.log(
                    Level.WARNING,
                    "jobs {0}: {1} job(s) still running after close; their handlers ignore interrupts",
                    config.instanceId(),
                    loop.get().inFlight());
        }
    }

    private void handBack(Execution execution) {
        try {
            LeaseStore.Released released = leases.release(execution.job().id(), execution.token(), now());
            switch (released.release()) {
                case REQUEUED ->
                    LOG.log(
                            Level.INFO,
                            "jobs {0}: job {1} handed back on close",
                            config.instanceId(),
                            execution.job().id());
                case CANCELED -> counters.finished(JobStatus.CANCELED);
                case GONE -> {
                    // taken over or ended meanwhile: nothing to give back
                }
            }
            if (released.job() != null) {
                Observers.tell(config.observer(), released.job());
            }
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "jobs " + config.instanceId() + ": handing job "
                            + execution.job().id()
                            + " back failed; another instance takes it over when its lease runs out",
                    e);
        }
    }

    private static void awaitDone(List<WorkLoop.Worker<Execution>> workers, Duration timeout) {
        long deadline = MonotonicClock.nanoTime() + timeout.toNanos();
        for (WorkLoop.Worker<Execution> worker : workers) {
            try {
                worker.done().get(Math.max(0, deadline - MonotonicClock.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

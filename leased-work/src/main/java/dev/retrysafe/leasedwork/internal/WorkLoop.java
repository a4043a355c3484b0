package dev.retrysafe.leasedwork.internal;

import dev.retrysafe.common.MonotonicClock;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The leased-work engine: a claim loop that asks a module's {@link LeasedWork} for due units
 * (as many as free workers allow), runs each on a worker thread of its own, wakes at once when
 * told that work was committed ({@link #wakeUp()}), runs periodic upkeep such as heartbeats, and
 * closes gracefully. No database connection is held by the loop between claims. Threadsafe.
 *
 * <p>Lifecycle: {@link #start()} starts the claim loop and the upkeep threads; {@link #runDue()}
 * does one claim synchronously instead (tests with a fake clock). {@link #close()} stops
 * claiming (work that sees {@link #isClosing()} before it begins gives its claim back), lets work
 * under way finish within the shutdown timeout, then hands what is still running to
 * {@link LeasedWork#abandon}, and stops the upkeep threads last (a heartbeat keeps the leases of
 * finishing work alive until then).
 *
 * @param <C> one claimed unit of work
 */
public final class WorkLoop<C> implements AutoCloseable {

    /** When the loop claims again. */
    public enum Rhythm {
        /**
         * A claim takes a batch, and only with room for one. The loop claims again at once when the
         * batch filled the room it asked for; otherwise nothing due was left but what the room held
         * back, and it waits for the poll interval, a wake-up, or, when due work was held back, the
         * first worker's end (claiming after every end would only cost the database a query that
         * finds nothing). Webhook delivery.
         */
        BATCHES,
        /**
         * The loop runs a round even without room (a round also ends work that must not run
         * again), claims again at once while a round claimed something and a worker is free, and
         * every worker's end wakes it. Jobs.
         */
        ROUNDS
    }

    /**
     * One unit of work under way on a thread of its own.
     *
     * @param <C> the claimed unit of work
     */
    public static final class Worker<C> {
        private final C claim;
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private volatile @Nullable Thread thread;

        Worker(C claim) {
            this.claim = claim;
        }

        /** The claimed unit. */
        public C claim() {
            return claim;
        }

        /** Interrupts the worker's thread. */
        public void interrupt() {
            Thread worker = thread;
            if (worker != null) {
                worker.interrupt();
            }
        }

        /** Completes when the worker is done with the claim, whatever the outcome. */
        public CompletableFuture<Void> done() {
            return done;
        }
    }

    /** How long {@code close()} waits for a loop or upkeep thread to end its current step. */
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(30);

    private final LoopSettings settings;
    private final LeasedWork<C> work;
    private final System.Logger log;
    private final Semaphore slots;
    private final Set<Worker<C>> running = ConcurrentHashMap.newKeySet();
    /** Serializes claims (the loop and {@link #runDue()}). */
    private final ReentrantLock roundLock = new ReentrantLock();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final Condition idle = lock.newCondition();
    private final Condition tick = lock.newCondition();
    /** Released when closing starts: work waiting to begin gives its claim back. */
    private final CountDownLatch closed = new CountDownLatch(1);

    private final List<Thread> background = new ArrayList<>();
    private @Nullable Thread loop;
    private boolean wakeRequested;
    /** When the claim loop last claimed (monotonic ns); read and written on the loop's thread only. */
    private long lastClaimNanos = Long.MIN_VALUE;

    private boolean waitingForWorkers;
    private boolean upkeepStopped;
    private boolean stopped;
    private volatile boolean closing;

    /** A loop over {@code work}, not started. */
    public WorkLoop(LoopSettings settings, LeasedWork<C> work) {
        this.settings = settings;
        this.work = work;
        this.log = settings.log();
        this.slots = new Semaphore(settings.workers());
    }

    /** Starts the claim loop and the upkeep threads. */
    public void start() {
        lock.lock();
        try {
            if (closing) {
                throw new IllegalStateException(settings.name() + " is closed");
            }
            if (!background.isEmpty()) {
                throw new IllegalStateException(settings.name() + " is already started");
            }
            List<Runnable> loops = new ArrayList<>();
            loops.add(this::claimLoop);
            for (LoopSettings.Upkeep upkeep : settings.upkeep()) {
                loops.add(() -> upkeepLoop(upkeep));
            }
            for (Runnable body : loops) {
                background.add(newThread(settings.loopThreads().newThread(body)));
            }
            loop = background.getFirst();
            background.forEach(Thread::start);
        } finally {
            lock.unlock();
        }
    }

    private Thread newThread(@Nullable Thread thread) {
        if (thread == null) {
            throw new IllegalStateException("the thread factory of " + settings.name() + " made no thread");
        }
        return thread;
    }

    /** Makes the loop claim now instead of at the end of its poll interval (e.g. after a commit). */
    public void wakeUp() {
        lock.lock();
        try {
            wakeRequested = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Units of work under way here. */
    public int inFlight() {
        return running.size();
    }

    /** The units of work under way here. */
    public List<C> running() {
        List<C> claims = new ArrayList<>(running.size());
        running.forEach(w -> claims.add(w.claim()));
        return claims;
    }

    /** Whether {@link #close()} began: work that has not begun gives its claim back. */
    public boolean isClosing() {
        return closing;
    }

    /**
     * Waits {@code nanos} (monotonic time) unless closing begins meanwhile; true if the whole
     * wait passed, false if closing began (or the thread was interrupted).
     */
    public boolean sleepUnlessClosing(long nanos) {
        try {
            return !closed.await(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * One claim whose units run to their end before it returns; how many ran.
     *
     * @throws IllegalStateException if closed
     */
    public int runDue() {
        if (closing) {
            throw new IllegalStateException(settings.name() + " is closed");
        }
        List<Worker<C>> started = round().started();
        for (Worker<C> worker : started) {
            try {
                worker.done().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for work to end", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("a worker failed unexpectedly", e.getCause());
            }
        }
        return started.size();
    }

    /**
     * Waits up to {@code timeout} until no work runs here; whether none does.
     */
    public boolean awaitIdle(Duration timeout) {
        return awaitIdleUntil(MonotonicClock.nanoTime() + timeout.toNanos());
    }

    private boolean awaitIdleUntil(long deadline) {
        lock.lock();
        try {
            while (!running.isEmpty()) {
                long left = deadline - MonotonicClock.nanoTime();
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
     * Stops claiming, lets work under way finish within the shutdown timeout, hands the rest to
     * {@link LeasedWork#abandon}, then stops the upkeep threads. Idempotent.
     */
    @Override
    public void close() {
        List<Thread> threads;
        @Nullable Thread claimLoop;
        lock.lock();
        try {
            if (closing) {
                return;
            }
            closing = true;
            closed.countDown();
            wake.signalAll();
            threads = List.copyOf(background);
            claimLoop = loop;
        } finally {
            lock.unlock();
        }
        long deadline = MonotonicClock.nanoTime() + settings.shutdownTimeout().toNanos();
        if (claimLoop != null) {
            join(claimLoop); // it ends its claim and stops
        }
        roundLock.lock(); // a runDue() under way has started its work when this returns
        try {
            stopped = true;
        } finally {
            roundLock.unlock();
        }
        if (!awaitIdleUntil(deadline)) {
            try {
                work.abandon(List.copyOf(running));
            } catch (RuntimeException e) {
                log.log(
                        Level.WARNING,
                        settings.name() + ": giving up work still under way failed; it is left to " + "its leases",
                        e);
            }
        }
        lock.lock();
        try {
            upkeepStopped = true;
            tick.signalAll();
        } finally {
            lock.unlock();
        }
        for (Thread thread : threads) {
            if (thread != claimLoop) {
                join(thread);
            }
        }
        work.closed();
    }

    private void join(Thread thread) {
        try {
            if (!thread.join(STOP_DEADLINE)) {
                log.log(
                        Level.WARNING,
                        "{0}: thread {1} did not stop within {2}",
                        settings.name(),
                        thread.getName(),
                        STOP_DEADLINE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // --- the claim loop ----------------------------------------------------------------------

    /** The workers one claim started, the room it had, and whether due work was left for lack of room. */
    private record Round(List<Worker<?>> all, int room, boolean heldBack) {
        @SuppressWarnings("unchecked")
        <C> List<Worker<C>> started() {
            return (List<Worker<C>>) (List<?>) all;
        }
    }

    private void claimLoop() {
        while (!closing) {
            boolean rounds = settings.rhythm() == Rhythm.ROUNDS;
            int room = Math.min(settings.batchSize(), slots.availablePermits());
            Round round = new Round(List.of(), room, room == 0);
            if (room > 0 || rounds) {
                lastClaimNanos = MonotonicClock.nanoTime();
                try {
                    round = round();
                } catch (RuntimeException e) {
                    log.log(
                            Level.WARNING,
                            settings.name() + ": claiming failed; trying again in " + settings.pollInterval(),
                            e);
                    round = new Round(List.of(), room, false);
                }
            }
            int started = round.all().size();
            if (rounds) {
                if (started > 0 && slots.availablePermits() > 0) {
                    continue; // more may be due right away
                }
            } else if (round.room() > 0 && started >= round.room()) {
                continue; // the batch was full: more may be due
            }
            if (!awaitWork(round.room() == 0 || round.heldBack())) {
                return;
            }
        }
    }

    /**
     * Waits for the poll interval, or less when woken: by {@link #wakeUp()}, or, if
     * {@code untilAWorkerEnds}, by the first worker that ends. False if interrupted.
     */
    private boolean awaitWork(boolean untilAWorkerEnds) {
        lock.lock();
        try {
            waitingForWorkers = untilAWorkerEnds;
            long nanos = settings.pollInterval().toNanos();
            while (!wakeRequested && !closing && nanos > 0) {
                nanos = wake.awaitNanos(nanos);
            }
            // a wake-up soon after the last claim waits out the claim gap, so that one claim takes
            // what the commits (or the workers' ends) of that time made due
            long gapLeft = gapLeft();
            while (wakeRequested && !closing && gapLeft > 0) {
                wake.awaitNanos(gapLeft);
                gapLeft = gapLeft();
            }
            wakeRequested = false;
            waitingForWorkers = false;
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** What is left of the claim gap since the loop's last claim (ns; 0 or less: none). */
    private long gapLeft() {
        long gap = settings.claimGap().toNanos();
        if (gap == 0 || settings.rhythm() != Rhythm.BATCHES || lastClaimNanos == Long.MIN_VALUE) {
            return 0;
        }
        return lastClaimNanos + gap - MonotonicClock.nanoTime();
    }

    private Round round() {
        roundLock.lock();
        try {
            if (stopped) {
                return new Round(List.of(), 0, false);
            }
            int room = Math.min(settings.batchSize(), slots.availablePermits());
            if (room == 0 && settings.rhythm() == Rhythm.BATCHES) {
                return new Round(List.of(), 0, true);
            }
            if (!slots.tryAcquire(room)) {
                return new Round(List.of(), 0, true);
            }
            LeasedWork.Claims<C> claims;
            try {
                claims = work.claim(room);
            } catch (RuntimeException e) {
                slots.release(room);
                throw e;
            }
            List<C> claimed = claims.claimed();
            if (claimed.size() > room) {
                slots.release(room);
                throw new IllegalStateException(settings.name() + ": claimed " + claimed.size() + " units for room "
                        + "for " + room + "; they are left to their leases");
            }
            slots.release(room - claimed.size());
            List<Worker<?>> started = new ArrayList<>(claimed.size());
            for (int i = 0; i < claimed.size(); i++) {
                Worker<C> worker;
                try {
                    worker = launch(claimed.get(i));
                } catch (Error e) {
                    slots.release(claimed.size() - i - 1); // the claims not launched are left to their leases
                    throw e;
                }
                if (worker != null) {
                    started.add(worker);
                }
            }
            return new Round(started, room, claims.heldBack() || claimed.size() == room);
        } finally {
            roundLock.unlock();
        }
    }

    /** Starts {@code claim}'s worker, which holds one slot; null (slot given back) if it could not start. */
    private @Nullable Worker<C> launch(C claim) {
        Worker<C> worker = new Worker<>(claim);
        try {
            Thread thread = newThread(settings.workerThreads().newThread(() -> runOne(worker)));
            worker.thread = thread;
            running.add(worker);
            work.starting(claim);
            thread.start();
            return worker;
        } catch (RuntimeException | Error e) {
            running.remove(worker);
            slots.release();
            if (e instanceof Error error) {
                throw error; // no thread to be had (out of memory, say): not this loop's to hide
            }
            log.log(
                    Level.WARNING,
                    settings.name() + ": could not start the work of a claim; it is left to its " + "lease",
                    e);
            return null;
        }
    }

    private void runOne(Worker<C> worker) {
        try {
            work.run(worker.claim());
        } catch (RuntimeException e) {
            log.log(Level.ERROR, settings.name() + ": a worker failed unexpectedly; its claim is left to its lease", e);
        } finally {
            running.remove(worker);
            slots.release();
            worker.done().complete(null);
            lock.lock();
            try {
                idle.signalAll();
                // ROUNDS: any end wakes the loop; BATCHES: only a loop waiting for room
                if (settings.rhythm() == Rhythm.ROUNDS || waitingForWorkers) {
                    wakeRequested = true;
                    wake.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    // --- upkeep ------------------------------------------------------------------------------

    private void upkeepLoop(LoopSettings.Upkeep upkeep) {
        long interval = upkeep.interval().toNanos();
        boolean go = upkeep.runAtStart() || pause(interval);
        while (go) {
            try {
                upkeep.task().run();
            } catch (RuntimeException e) {
                log.log(
                        Level.WARNING,
                        settings.name() + ": " + upkeep.what() + " failed; trying again in " + upkeep.interval(),
                        e);
            }
            go = pause(interval);
        }
    }

    /** Waits {@code nanos} (monotonic time); false once the upkeep threads must stop. */
    private boolean pause(long nanos) {
        long deadline = MonotonicClock.nanoTime() + nanos;
        lock.lock();
        try {
            while (!upkeepStopped) {
                long left = deadline - MonotonicClock.nanoTime();
                if (left <= 0) {
                    return true;
                }
                tick.awaitNanos(left);
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }
}

package dev.retrysafe.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.PooledDataSource;
import dev.retrysafe.testkit.ThrowawayDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The behaviour of {@link Jobs} over a real database, written once and run against H2 and
 * PostgreSQL by subclasses. Time only moves when a test moves the {@link FakeClock}; instances
 * are driven with {@link Jobs#runDue()} and {@link Jobs#heartbeat()}, and a handler that must be
 * caught mid-run waits at a {@link Gate}. The listener writes each final state to a table inside
 * the transaction it is given, so a row there proves the call committed with the job's change.
 * After each test every instance is closed, every thread it made has ended and every connection
 * was returned.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JobsContract {

    static final String OWNER = "acct_1";
    static final String OTHER_OWNER = "acct_2";
    static final String KIND = "report";
    static final Duration LEASE = Duration.ofSeconds(30);
    static final Duration PAST_LEASE = LEASE.plusSeconds(1);
    static final byte[] CSV = "id,amount\r\npay_1,100\r\n".getBytes(UTF_8);

    private ThrowawayDatabase database;
    PooledDataSource dataSource;
    FakeClock clock;
    RecordingThreads threads;
    /** Jobs whose final state the listener refuses (it throws after writing its row). */
    volatile Predicate<Job> listenerRefuses = job -> false;
    /** What the observer was told, in order: {@code status/progress[/cancel]} of every change. */
    final List<String> observed = new CopyOnWriteArrayList<>();
    /** Whether the observer throws after recording. */
    volatile boolean observerThrows;

    private final List<Jobs> instances = new ArrayList<>();
    private final List<CompletableFuture<?>> backgroundRuns = new ArrayList<>();
    private ExecutorService background;

    /** A new, empty database of this test class's own. */
    protected abstract ThrowawayDatabase openDatabase();

    @BeforeAll
    void createSchema() throws SQLException {
        database = openDatabase();
        dataSource = new PooledDataSource(database.dataSource(), 12);
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(JobSchema.schemaSql()); // the whole script in one execute, as a migration runs it
            s.execute("CREATE TABLE job_events (job_id VARCHAR(64) NOT NULL, status VARCHAR(16) NOT NULL)");
        }
    }

    @AfterAll
    void dropDatabase() throws SQLException {
        if (dataSource != null) {
            dataSource.close();
        }
        if (database != null) {
            database.close();
        }
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            for (String table : List.of("job_results", "jobs", "job_kinds", "job_events")) {
                s.execute("DELETE FROM " + table);
            }
        }
        clock = new FakeClock(Instant.parse("2026-03-01T10:00:00Z"));
        threads = new RecordingThreads();
        listenerRefuses = job -> false;
        observed.clear();
        observerThrows = false;
        background = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("test-run-due-", 0).factory());
    }

    @AfterEach
    void everythingWasReleased() throws Exception {
        instances.forEach(Jobs::close);
        instances.clear();
        for (CompletableFuture<?> run : backgroundRuns) {
            run.get(Gate.DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        }
        backgroundRuns.clear();
        background.shutdown();
        assertThat(background.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        threads.assertAllEnded();
        assertThat(dataSource.borrowed()).as("connections left open").isZero();
    }

    // --- fixtures ----------------------------------------------------------------------------

    /** An instance builder with the test's clock, lease, thread factory and recording listener. */
    Jobs.Builder builder(String instanceId) {
        return builderWithDefaultThreads(instanceId).threadFactory(threads);
    }

    /** {@link #builder} without the recording thread factory: the instance makes its threads as shipped. */
    Jobs.Builder builderWithDefaultThreads(String instanceId) {
        return Jobs.builder(dataSource)
                .clock(clock)
                .instanceId(instanceId)
                .lease(LEASE)
                .observer(job -> {
                    observed.add(
                            job.status().wireName() + "/" + job.progress() + (job.cancelRequested() ? "/cancel" : ""));
                    if (observerThrows) {
                        throw new IllegalStateException("the observer fails");
                    }
                })
                .listener((transaction, job) -> {
                    try (PreparedStatement s =
                            transaction.prepareStatement("INSERT INTO job_events (job_id, status) VALUES (?, ?)")) {
                        s.setString(1, job.id());
                        s.setString(2, job.status().wireName());
                        s.executeUpdate();
                    }
                    if (listenerRefuses.test(job)) {
                        throw new SQLException("the listener refuses");
                    }
                });
    }

    /** Builds and remembers an instance, closed after the test. */
    Jobs build(Jobs.Builder builder) {
        Jobs jobs = builder.build();
        instances.add(jobs);
        return jobs;
    }

    /** An instance running {@link #KIND} with {@code handler}, limit 10. */
    Jobs instance(String instanceId, JobHandler handler) {
        return build(builder(instanceId).handler(KIND, handler, 10));
    }

    /** Runs {@code jobs.runDue()} on another thread; the test waits for it with a deadline. */
    CompletableFuture<Integer> runDueInBackground(Jobs jobs) {
        CompletableFuture<Integer> run = CompletableFuture.supplyAsync(jobs::runDue, background);
        backgroundRuns.add(run);
        return run;
    }

    static <T> T within(CompletableFuture<T> future) throws Exception {
        return future.get(Gate.DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }

    Job enqueue(Jobs jobs) {
        return jobs.enqueue(new NewJob(OWNER, KIND, "{\"from\":\"2026-01-01\"}"));
    }

    Job job(Jobs jobs, Job job) {
        return jobs.find(job.owner(), job.id()).orElseThrow();
    }

    static byte[] download(Jobs jobs, Job job) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(jobs.writeResult(job.owner(), job.id(), out))
                .as("result ready")
                .isTrue();
        return out.toByteArray();
    }

    /** The final states the listener committed for {@code job}, in order. */
    List<String> events(Job job) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT status FROM job_events WHERE job_id = ?")) {
            s.setString(1, job.id());
            List<String> statuses = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    statuses.add(r.getString(1));
                }
            }
            return statuses;
        }
    }

    long count(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    static JobHandler returning(byte[] body) {
        return context -> JobOutput.of("text/csv; charset=utf-8", body);
    }

    // --- enqueue and run ---------------------------------------------------------------------

    @Test
    void enqueuedJobIsQueuedWithAnUnguessableId() {
        Jobs jobs = instance("a", returning(CSV));
        Job job = enqueue(jobs);

        assertThat(job.id()).matches("job_[A-Za-z0-9_-]{24}");
        assertThat(job(jobs, job)).isEqualTo(job);
        assertThat(job.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(job.createdAt()).isEqualTo(clock.instant());
        assertThat(job.attempts()).isZero();
        assertThat(job.maxAttempts()).isEqualTo(Jobs.DEFAULT_MAX_ATTEMPTS);
        assertThat(job.startedAt()).isNull();
        assertThat(job.error()).isNull();
        assertThat(jobs.result(OWNER, job.id())).isEqualTo(new ResultLookup.NotReady(job));
    }

    @Test
    void runsAJobAndStoresItsResult() throws Exception {
        Jobs jobs = instance("a", returning(CSV));
        Job queued = enqueue(jobs);
        clock.advance(Duration.ofSeconds(2));

        assertThat(jobs.runDue()).isEqualTo(1);

        Job done = job(jobs, queued);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempts()).isEqualTo(1);
        assertThat(done.progress()).isEqualTo(100);
        assertThat(done.startedAt()).isEqualTo(clock.instant());
        assertThat(done.finishedAt()).isEqualTo(clock.instant());
        assertThat(done.resultExpiresAt()).isEqualTo(clock.instant().plus(Jobs.DEFAULT_RESULT_RETENTION));
        assertThat(done.resultExpired()).isFalse();
        assertThat(done.resultContentType()).isEqualTo("text/csv; charset=utf-8");
        assertThat(done.resultSize()).isEqualTo(CSV.length);
        assertThat(jobs.result(OWNER, queued.id()))
                .isEqualTo(new ResultLookup.Ready(done, "text/csv; charset=utf-8", CSV.length));
        assertThat(download(jobs, queued)).isEqualTo(CSV);
        assertThat(events(queued)).containsExactly("succeeded");
        assertThat(jobs.metrics().succeeded()).isEqualTo(1);
        assertThat(jobs.metrics().running()).isZero();
        assertThat(jobs.runDue()).as("nothing left").isZero();
    }

    @Test
    void streamsALargeResultThroughATemporaryFile() throws Exception {
        byte[] expected = new byte[1024 * 1024 + 7];
        new java.util.Random(42).nextBytes(expected);
        Jobs jobs = instance(
                "a",
                context -> JobOutput.streamed("application/octet-stream", out -> {
                    for (int i = 0; i < expected.length; i += 8192) {
                        out.write(expected, i, Math.min(8192, expected.length - i));
                    }
                }));
        Job queued = enqueue(jobs);

        assertThat(jobs.runDue()).isEqualTo(1);

        assertThat(job(jobs, queued).resultSize()).isEqualTo(expected.length);
        assertThat(download(jobs, queued)).isEqualTo(expected);
    }

    @Test
    void handlerSeesItsClaimAndReportsMonotonicProgress() throws Exception {
        Gate gate = new Gate();
        AtomicReference<Job> seen = new AtomicReference<>();
        AtomicReference<Throwable> outOfRange = new AtomicReference<>();
        Jobs jobs = instance("a", context -> {
            seen.set(context.job());
            context.progress(10);
            context.progress(40);
            context.progress(5); // lower: ignored
            try {
                context.progress(101);
            } catch (IllegalArgumentException e) {
                outOfRange.set(e);
            }
            gate.pass();
            return JobOutput.of("text/plain", CSV);
        });
        Job queued = enqueue(jobs);

        CompletableFuture<Integer> run = runDueInBackground(jobs);
        gate.awaitEntered();

        Job running = job(jobs, queued);
        assertThat(running.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(running.progress()).isEqualTo(40);
        assertThat(running.attempts()).isEqualTo(1);
        assertThat(seen.get().attempts()).isEqualTo(1);
        assertThat(seen.get().status()).isEqualTo(JobStatus.RUNNING);
        assertThat(seen.get().params()).isEqualTo(queued.params());
        assertThat(outOfRange.get()).hasMessageContaining("percent");
        assertThat(jobs.metrics().running()).isEqualTo(1);
        gate.open();
        assertThat(within(run)).isEqualTo(1);
        assertThat(job(jobs, queued).progress()).isEqualTo(100);
    }

    // --- cancel ------------------------------------------------------------------------------

    @Test
    void cancelOfAQueuedJobCancelsItAtOnceAndRepeatsTheAnswer() throws Exception {
        Jobs jobs = instance("a", returning(CSV));
        Job queued = enqueue(jobs);

        CancelResult first = jobs.cancel(OWNER, queued.id());

        Job canceled = job(jobs, queued);
        assertThat(first).isEqualTo(new CancelResult.Canceled(canceled));
        assertThat(canceled.status()).isEqualTo(JobStatus.CANCELED);
        assertThat(canceled.cancelRequested()).isTrue();
        assertThat(canceled.finishedAt()).isEqualTo(clock.instant());
        assertThat(jobs.cancel(OWNER, queued.id())).isEqualTo(first);
        assertThat(jobs.runDue()).isZero();
        assertThat(events(queued)).containsExactly("canceled");
        assertThat(jobs.metrics().canceled()).isEqualTo(1);
    }

    @Test
    void cancelOfARunningJobStopsItAtItsNextCheckpoint() throws Exception {
        Gate gate = new Gate();
        Jobs jobs = instance("a", context -> {
            gate.pass();
            context.checkpoint();
            throw new AssertionError("the checkpoint let a canceled job go on");
        });
        Job queued = enqueue(jobs);
        CompletableFuture<Integer> run = runDueInBackground(jobs);
        gate.awaitEntered();

        CancelResult first = jobs.cancel(OWNER, queued.id());
        CancelResult again = jobs.cancel(OWNER, queued.id());

        assertThat(first).isInstanceOf(CancelResult.CancelRequested.class);
        Job requested = ((CancelResult.CancelRequested) first).job();
        assertThat(requested.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(requested.cancelRequested()).isTrue();
        assertThat(again).isEqualTo(first);
        gate.open();
        assertThat(within(run)).isEqualTo(1);
        Job canceled = job(jobs, queued);
        assertThat(canceled.status()).isEqualTo(JobStatus.CANCELED);
        assertThat(canceled.error()).isNull();
        assertThat(events(queued)).containsExactly("canceled");
        assertThat(jobs.result(OWNER, queued.id())).isEqualTo(new ResultLookup.NotReady(canceled));
        assertThat(jobs.cancel(OWNER, queued.id())).isEqualTo(new CancelResult.Canceled(canceled));
        assertThat(jobs.metrics().canceled()).isEqualTo(1);
    }

    @Test
    void cancelThroughAnotherInstanceReachesTheHandlerWithTheNextHeartbeat() throws Exception {
        Gate gate = new Gate();
        AtomicBoolean seenBeforeHeartbeat = new AtomicBoolean(true);
        Gate afterHeartbeat = new Gate();
        Jobs worker = instance("a", context -> {
            gate.pass();
            seenBeforeHeartbeat.set(context.cancelRequested());
            afterHeartbeat.pass();
            context.checkpoint();
            throw new AssertionError("the checkpoint let a canceled job go on");
        });
        Jobs api = build(builder("api"));
        Job queued = enqueue(api);
        CompletableFuture<Integer> run = runDueInBackground(worker);
        gate.awaitEntered();

        assertThat(api.cancel(OWNER, queued.id())).isInstanceOf(CancelResult.CancelRequested.class);
        gate.open();
        afterHeartbeat.awaitEntered();
        worker.heartbeat();
        afterHeartbeat.open();

        assertThat(within(run)).isEqualTo(1);
        assertThat(seenBeforeHeartbeat.get())
                .as("no heartbeat yet: the flag is not known")
                .isFalse();
        assertThat(job(api, queued).status()).isEqualTo(JobStatus.CANCELED);
        assertThat(worker.metrics().canceled()).isEqualTo(1);
    }

    @Test
    void handlerThatFinishesDespiteACancelRequestKeepsItsResult() throws Exception {
        Gate gate = new Gate();
        Jobs jobs = instance("a", context -> {
            gate.pass();
            return JobOutput.of("text/csv", CSV); // no checkpoint after the request
        });
        Job queued = enqueue(jobs);
        CompletableFuture<Integer> run = runDueInBackground(jobs);
        gate.awaitEntered();

        assertThat(jobs.cancel(OWNER, queued.id())).isInstanceOf(CancelResult.CancelRequested.class);
        gate.open();
        assertThat(within(run)).isEqualTo(1);

        Job done = job(jobs, queued);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.cancelRequested()).isTrue();
        assertThat(jobs.cancel(OWNER, queued.id())).isEqualTo(new CancelResult.AlreadyFinished(done));
        assertThat(events(queued)).containsExactly("succeeded");
    }

    @Test
    void cancelAfterTheJobFinishedIsAlreadyFinished() {
        Jobs jobs = instance("a", returning(CSV));
        Job succeeded = enqueue(jobs);
        jobs.runDue();
        Jobs failing = build(builder("b")
                .handler(
                        "failing",
                        context -> {
                            throw new JobFailedException(
                                    new JobProblem("no-payments", "No payments", "The range is empty."));
                        },
                        1));
        Job failed = failing.enqueue(new NewJob(OWNER, "failing", "{}"));
        failing.runDue();

        assertThat(jobs.cancel(OWNER, succeeded.id()))
                .isEqualTo(new CancelResult.AlreadyFinished(job(jobs, succeeded)));
        assertThat(jobs.cancel(OWNER, failed.id())).isEqualTo(new CancelResult.AlreadyFinished(job(jobs, failed)));
        assertThat(job(jobs, succeeded).cancelRequested()).isFalse();
    }

    // --- failures ----------------------------------------------------------------------------

    @Test
    void declaredFailureFailsTheJobWithItsProblemAndIsNeverRetried() throws Exception {
        JobProblem problem = new JobProblem("range-too-large", "Range too large", "At most 366 days.");
        Jobs jobs = instance("a", context -> {
            throw new JobFailedException(problem);
        });
        Job queued = enqueue(jobs);

        assertThat(jobs.runDue()).isEqualTo(1);
        clock.advance(PAST_LEASE);
        assertThat(jobs.runDue()).isZero();

        Job failed = job(jobs, queued);
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.error()).isEqualTo(problem);
        assertThat(failed.attempts()).isEqualTo(1);
        assertThat(events(queued)).containsExactly("failed");
        assertThat(jobs.metrics().failed()).isEqualTo(1);
    }

    @Test
    void unexpectedExceptionFailsAsJobErrorNamingOnlyItsClass() throws Exception {
        Jobs jobs = instance("a", context -> {
            throw new IllegalStateException("jdbc:postgresql://db/prod?password=hunter2");
        });
        Job queued = enqueue(jobs);

        assertThat(jobs.runDue()).isEqualTo(1);

        Job failed = job(jobs, queued);
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.error()).isEqualTo(new JobProblem("job-error", "The job failed", "IllegalStateException"));
        assertThat(failed.toString()).doesNotContain("hunter2");
        clock.advance(PAST_LEASE);
        assertThat(jobs.runDue()).as("not retried").isZero();
        assertThat(events(queued)).containsExactly("failed");
    }

    @Test
    void handlerThatLostTheDatabaseRunsAgainAfterItsLeaseLikeALostWorker() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Jobs jobs = instance("a", context -> {
            if (runs.incrementAndGet() == 1) {
                throw new IOException(
                        "reading payments failed",
                        new SQLException("terminating connection due to administrator command", "57P01"));
            }
            return JobOutput.of("text/plain", CSV);
        });
        Job queued = enqueue(jobs);

        assertThat(jobs.runDue()).isEqualTo(1);
        Job left = job(jobs, queued);
        assertThat(left.status()).as("nothing recorded").isEqualTo(JobStatus.RUNNING);
        assertThat(jobs.runDue()).as("its lease still holds").isZero();
        clock.advance(PAST_LEASE);
        assertThat(jobs.runDue()).isEqualTo(1);

        Job done = job(jobs, queued);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(download(jobs, queued)).isEqualTo(CSV);
        assertThat(events(queued)).containsExactly("succeeded");
        assertThat(jobs.metrics().failed()).isZero();
    }

    @Test
    void handlerThatKeepsLosingTheDatabaseFailsAsWorkerLostAfterMaxAttempts() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Jobs jobs = instance("a", context -> {
            runs.incrementAndGet();
            throw new SQLTransientConnectionException("Connection is not available, request timed out");
        });
        Job queued = enqueue(jobs);

        for (int attempt = 1; attempt <= Jobs.DEFAULT_MAX_ATTEMPTS; attempt++) {
            assertThat(jobs.runDue()).as("run %d", attempt).isEqualTo(1);
            clock.advance(PAST_LEASE);
        }
        assertThat(jobs.runDue()).as("nothing left to run").isZero();

        Job failed = job(jobs, queued);
        assertThat(runs).hasValue(Jobs.DEFAULT_MAX_ATTEMPTS);
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.error().type()).isEqualTo("worker-lost");
        assertThat(events(queued)).containsExactly("failed");
    }

    @Test
    void cancelExceptionWithoutARequestIsAnUnexpectedException() {
        Jobs jobs = instance("a", context -> {
            throw new JobCanceledException();
        });
        Job queued = enqueue(jobs);

        jobs.runDue();

        Job failed = job(jobs, queued);
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.error().detail()).isEqualTo("JobCanceledException");
    }

    // --- lost workers ------------------------------------------------------------------------

    @Test
    void jobOfALostWorkerRunsToCompletionOnceElsewhereAndTheLateWorkerIsDiscarded() throws Exception {
        Gate gate = new Gate();
        Jobs first = instance("a", context -> {
            gate.pass();
            return JobOutput.of("text/plain", "from a".getBytes(UTF_8));
        });
        Jobs second = instance("b", returning("from b".getBytes(UTF_8)));
        Job queued = enqueue(first);
        CompletableFuture<Integer> late = runDueInBackground(first);
        gate.awaitEntered();

        assertThat(second.runDue()).as("lease still live").isZero();
        clock.advance(PAST_LEASE);
        assertThat(second.runDue()).isEqualTo(1);
        gate.open();
        assertThat(within(late)).isEqualTo(1);

        Job done = job(first, queued);
        assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(done.attempts()).isEqualTo(2);
        assertThat(download(first, queued)).isEqualTo("from b".getBytes(UTF_8));
        assertThat(events(queued)).containsExactly("succeeded");
        assertThat(first.metrics().succeeded()).isZero();
        assertThat(second.metrics().succeeded()).isEqualTo(1);
        assertThat(second.metrics().leaseExpiredRetries()).isEqualTo(1);
    }

    @Test
    void lateWorkerCannotCompleteWhileTheNewOwnerStillRuns() throws Exception {
        Gate lateGate = new Gate();
        Gate newGate = new Gate();
        Jobs first = instance("a", context -> {
            lateGate.pass();
            return JobOutput.of("text/plain", "from a".getBytes(UTF_8));
        });
        Jobs second = instance("b", context -> {
            newGate.pass();
            return JobOutput.of("text/plain", "from b".getBytes(UTF_8));
        });
        Job queued = enqueue(first);
        CompletableFuture<Integer> late = runDueInBackground(first);
        lateGate.awaitEntered();
        clock.advance(PAST_LEASE);
        CompletableFuture<Integer> current = runDueInBackground(second);
        newGate.awaitEntered();

        lateGate.open();
        assertThat(within(late)).isEqualTo(1);

        Job running = job(first, queued);
        assertThat(running.status()).as("the late completion was discarded").isEqualTo(JobStatus.RUNNING);
        assertThat(running.attempts()).isEqualTo(2);
        assertThat(events(queued)).isEmpty();
        newGate.open();
        assertThat(within(current)).isEqualTo(1);
        assertThat(download(first, queued)).isEqualTo("from b".getBytes(UTF_8));
        assertThat(events(queued)).containsExactly("succeeded");
    }

    @Test
    void workerWhoseLeaseWasTakenOverLearnsItAtTheNextHeartbeat() throws Exception {
        Gate gate = new Gate();
        AtomicReference<Throwable> atCheckpoint = new AtomicReference<>();
        Jobs first = instance("a", context -> {
            gate.pass();
            try {
                context.checkpoint();
            } catch (RuntimeException e) {
                atCheckpoint.set(e);
                throw e;
            }
            return JobOutput.of("text/plain", "from a".getBytes(UTF_8));
        });
        Jobs second = instance("b", returning("from b".getBytes(UTF_8)));
        Job queued = enqueue(first);
        CompletableFuture<Integer> late = runDueInBackground(first);
        gate.awaitEntered();
        clock.advance(PAST_LEASE);
        assertThat(second.runDue()).isEqualTo(1);

        first.heartbeat();
        gate.open();
        assertThat(within(late)).isEqualTo(1);

        assertThat(atCheckpoint.get()).isInstanceOf(JobLeaseLostException.class);
        assertThat(download(first, queued)).isEqualTo("from b".getBytes(UTF_8));
        assertThat(events(queued)).containsExactly("succeeded");
    }

    @Test
    void heartbeatKeepsALongJobsLeaseAlive() throws Exception {
        Gate gate = new Gate();
        Jobs first = instance("a", context -> {
            gate.pass();
            return JobOutput.of("text/plain", CSV);
        });
        Jobs second = instance("b", returning(CSV));
        Job queued = enqueue(first);
        CompletableFuture<Integer> run = runDueInBackground(first);
        gate.awaitEntered();

        for (int i = 0; i < 5; i++) {
            clock.advance(LEASE.dividedBy(3));
            first.heartbeat();
        }
        assertThat(second.runDue()).as("past the first lease, but extended").isZero();
        gate.open();
        assertThat(within(run)).isEqualTo(1);
        assertThat(job(first, queued).attempts()).isEqualTo(1);
        assertThat(second.metrics().leaseExpiredRetries()).isZero();
    }

    @Test
    void jobThatKeepsLosingItsWorkerFailsAsWorkerLostAfterMaxAttempts() throws Exception {
        Gate hang = new Gate();
        List<CompletableFuture<Integer>> lost = new ArrayList<>();
        Job queued = null;
        for (int attempt = 1; attempt <= Jobs.DEFAULT_MAX_ATTEMPTS; attempt++) {
            Gate entered = new Gate();
            entered.open();
            Jobs doomed = instance("doomed-" + attempt, context -> {
                entered.pass();
                hang.pass();
                return JobOutput.of("text/plain", CSV);
            });
            if (queued == null) {
                queued = enqueue(doomed);
            }
            lost.add(runDueInBackground(doomed));
            entered.awaitEntered();
            assertThat(job(doomed, queued).attempts()).isEqualTo(attempt);
            clock.advance(PAST_LEASE);
        }
        Jobs last = instance("last", returning(CSV));

        assertThat(last.runDue()).as("nothing left to run").isZero();

        Job failed = job(last, queued);
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.attempts()).isEqualTo(3);
        assertThat(failed.error().type()).isEqualTo("worker-lost");
        assertThat(failed.error().detail()).contains("3 times");
        assertThat(events(queued)).containsExactly("failed");
        assertThat(last.metrics().failed()).isEqualTo(1);
        hang.open(); // the lost workers come back: their outcomes are discarded
        for (CompletableFuture<Integer> run : lost) {
            assertThat(within(run)).isEqualTo(1);
        }
        assertThat(job(last, queued)).isEqualTo(failed);
        assertThat(events(queued)).containsExactly("failed");
        assertThat(last.runDue()).isZero();
    }

    @Test
    void cancelRequestedForAJobWhoseWorkerWasLostCancelsIt() throws Exception {
        Gate hang = new Gate();
        Jobs lostWorker = instance("a", context -> {
            hang.pass();
            return JobOutput.of("text/plain", CSV);
        });
        Jobs other = instance("b", returning(CSV));
        Job queued = enqueue(lostWorker);
        CompletableFuture<Integer> lost = runDueInBackground(lostWorker);
        hang.awaitEntered();
        assertThat(other.cancel(OWNER, queued.id())).isInstanceOf(CancelResult.CancelRequested.class);
        clock.advance(PAST_LEASE);

        assertThat(other.runDue()).as("not run again").isZero();

        assertThat(job(other, queued).status()).isEqualTo(JobStatus.CANCELED);
        assertThat(events(queued)).containsExactly("canceled");
        hang.open();
        within(lost);
        assertThat(events(queued)).containsExactly("canceled");
    }

    // --- per-kind limits ---------------------------------------------------------------------

    @Test
    void kindLimitHoldsAcrossInstances() throws Exception {
        Gate gate = new Gate();
        JobHandler held = context -> {
            gate.pass();
            return JobOutput.of("text/plain", CSV);
        };
        Jobs first = build(builder("a").handler(KIND, held, 1));
        Jobs second = build(builder("b").handler(KIND, held, 1));
        Job one = enqueue(first);
        Job two = enqueue(first);
        CompletableFuture<Integer> running = runDueInBackground(first);
        gate.awaitEntered();

        assertThat(second.runDue())
                .as("the kind's one slot is taken in another instance")
                .isZero();
        assertThat(first.stats()).isEqualTo(new JobStats(1, 1, Duration.ZERO));
        gate.open();
        assertThat(within(running)).as("one job per round at limit 1").isEqualTo(1);
        assertThat(second.runDue()).isEqualTo(1);
        assertThat(List.of(job(first, one).status(), job(first, two).status())).containsOnly(JobStatus.SUCCEEDED);
    }

    @Test
    void jobsOfAKindWithoutAHandlerHereAreNotClaimed() {
        Jobs jobs = instance("a", returning(CSV));
        Job other = jobs.enqueue(new NewJob(OWNER, "exports", "{}"));

        assertThat(jobs.runDue()).isZero();

        assertThat(job(jobs, other).status()).isEqualTo(JobStatus.QUEUED);
    }

    @Test
    void workersBoundTheJobsOneInstanceRunsAtOnce() throws Exception {
        Gate gate = new Gate();
        Jobs jobs = build(builder("a")
                .workers(2)
                .handler(
                        KIND,
                        context -> {
                            gate.pass();
                            return JobOutput.of("text/plain", CSV);
                        },
                        10));
        for (int i = 0; i < 3; i++) {
            enqueue(jobs);
        }
        CompletableFuture<Integer> run = runDueInBackground(jobs);
        gate.awaitEntered();

        assertThat(jobs.runDue()).as("no free worker").isZero();
        gate.open();
        assertThat(within(run)).isEqualTo(2);
        assertThat(jobs.runDue()).isEqualTo(1);
    }

    // --- retention ---------------------------------------------------------------------------

    @Test
    void resultExpiresAtTheRetentionBoundaryAndPurgeDeletesItsBytes() throws Exception {
        Jobs jobs = build(builder("a")
                .resultRetention(Duration.ofHours(1))
                .recordRetention(Duration.ofDays(1))
                .handler(KIND, returning(CSV), 1));
        Job queued = enqueue(jobs);
        Job waiting = jobs.enqueue(new NewJob(OWNER, "exports", "{}"));
        jobs.runDue();
        Instant finished = clock.instant();

        clock.advance(Duration.ofHours(1).minusMillis(1));
        assertThat(jobs.result(OWNER, queued.id())).isInstanceOf(ResultLookup.Ready.class);
        assertThat(jobs.purgeExpired()).isZero();
        clock.advance(Duration.ofMillis(1));

        Job expired = job(jobs, queued);
        assertThat(expired.resultExpired()).isTrue();
        assertThat(jobs.result(OWNER, queued.id())).isEqualTo(new ResultLookup.Expired(expired));
        assertThat(jobs.writeResult(OWNER, queued.id(), new ByteArrayOutputStream()))
                .isFalse();
        assertThat(count("SELECT COUNT(*) FROM job_results"))
                .as("not purged yet")
                .isEqualTo(1);

        assertThat(jobs.purgeExpired()).isEqualTo(1);

        assertThat(count("SELECT COUNT(*) FROM job_results")).isZero();
        Job purged = job(jobs, queued);
        assertThat(purged.status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(purged.resultExpired()).isTrue();
        assertThat(purged.resultSize()).isEqualTo(CSV.length);
        assertThat(jobs.result(OWNER, queued.id())).isEqualTo(new ResultLookup.Expired(purged));

        clock.set(finished.plus(Duration.ofDays(1)).minusMillis(1));
        assertThat(jobs.purgeExpired()).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(jobs.purgeExpired())
                .as("the record, a day after it finished")
                .isEqualTo(1);
        assertThat(jobs.find(OWNER, queued.id())).isEmpty();
        assertThat(jobs.find(OWNER, waiting.id())).as("unfinished jobs stay").isPresent();
    }

    @Test
    void recordIsNeverDeletedBeforeItsResultExpired() {
        Jobs jobs = build(builder("a")
                .resultRetention(Duration.ofDays(2))
                .recordRetention(Duration.ofDays(1))
                .handler(KIND, returning(CSV), 1));
        Job queued = enqueue(jobs);
        jobs.runDue();

        clock.advance(Duration.ofDays(1).plusHours(1));
        assertThat(jobs.purgeExpired()).isZero();
        assertThat(jobs.result(OWNER, queued.id())).isInstanceOf(ResultLookup.Ready.class);

        clock.advance(Duration.ofDays(1));
        assertThat(jobs.purgeExpired()).as("result and record").isEqualTo(2);
        assertThat(jobs.find(OWNER, queued.id())).isEmpty();
    }

    // --- tenants -----------------------------------------------------------------------------

    @Test
    void anotherOwnersJobIsNotFoundEverywhere() throws Exception {
        Jobs jobs = instance("a", returning(CSV));
        Job queued = enqueue(jobs);

        assertThat(jobs.find(OTHER_OWNER, queued.id())).isEmpty();
        assertThat(jobs.cancel(OTHER_OWNER, queued.id())).isEqualTo(new CancelResult.NotFound());
        assertThat(job(jobs, queued).status())
                .as("not canceled by the other owner")
                .isEqualTo(JobStatus.QUEUED);
        jobs.runDue();
        assertThat(jobs.result(OTHER_OWNER, queued.id())).isEqualTo(new ResultLookup.NotFound());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(jobs.writeResult(OTHER_OWNER, queued.id(), out)).isFalse();
        assertThat(out.size()).isZero();
        assertThat(jobs.cancel(OTHER_OWNER, queued.id())).isEqualTo(new CancelResult.NotFound());
        assertThat(jobs.find(OWNER, "job_unknown")).isEmpty();
        assertThat(jobs.result(OWNER, "job_unknown")).isEqualTo(new ResultLookup.NotFound());
    }

    @Test
    void listPagesAnOwnersJobsNewestFirstWithACursor() {
        Jobs jobs = build(builder("a"));
        List<Job> made = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            made.add(enqueue(jobs));
        }
        clock.advance(Duration.ofMillis(1));
        made.add(enqueue(jobs)); // three share a creation time: the id orders them
        jobs.enqueue(new NewJob(OTHER_OWNER, KIND, "{}"));
        List<String> newestFirst = new ArrayList<>(
                made.subList(0, 3).stream().map(Job::id).sorted().toList().reversed());
        newestFirst.addFirst(made.get(3).id());

        JobPage first = jobs.list(OWNER, null, 3).orElseThrow();
        JobPage rest = jobs.list(OWNER, first.jobs().getLast().id(), 3).orElseThrow();

        assertThat(first.jobs()).extracting(Job::id).containsExactlyElementsOf(newestFirst.subList(0, 3));
        assertThat(first.hasMore()).isTrue();
        assertThat(rest.jobs()).extracting(Job::id).containsExactly(newestFirst.get(3));
        assertThat(rest.hasMore()).isFalse();
        assertThat(first.jobs().getFirst()).isEqualTo(job(jobs, made.get(3)));
        assertThat(jobs.list(OTHER_OWNER, null, 100).orElseThrow().jobs())
                .singleElement()
                .satisfies(j -> assertThat(j.owner()).isEqualTo(OTHER_OWNER));
        assertThat(jobs.list(OTHER_OWNER, made.getFirst().id(), 10))
                .as("another owner's job as cursor")
                .isEmpty();
        assertThat(jobs.list(OWNER, "job_unknown", 10)).isEmpty();
        assertThatThrownBy(() -> jobs.list(OWNER, null, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> jobs.list(OWNER, null, 101))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
    }

    // --- the listener's transaction ----------------------------------------------------------

    @Test
    void throwingListenerLeavesTheJobUnfinishedUntilARetrySucceeds() throws Exception {
        Jobs first = instance("a", returning(CSV));
        Jobs second = instance("b", returning(CSV));
        Job queued = enqueue(first);
        listenerRefuses = job -> true;

        assertThat(first.runDue()).isEqualTo(1);

        Job running = job(first, queued);
        assertThat(running.status()).as("the completion rolled back").isEqualTo(JobStatus.RUNNING);
        assertThat(count("SELECT COUNT(*) FROM job_results")).isZero();
        assertThat(events(queued)).isEmpty();
        assertThat(first.metrics().succeeded()).isZero();

        listenerRefuses = job -> false;
        clock.advance(PAST_LEASE);
        assertThat(second.runDue()).isEqualTo(1);
        assertThat(job(first, queued).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(job(first, queued).attempts()).isEqualTo(2);
        assertThat(events(queued)).containsExactly("succeeded");
    }

    @Test
    void throwingListenerForAJobOutOfWorkersHoldsUpOnlyThatJob() throws Exception {
        Gate hang = new Gate();
        Jobs lostWorker = build(builder("a")
                .maxAttempts(1)
                .handler(
                        KIND,
                        context -> {
                            hang.pass();
                            return JobOutput.of("text/plain", CSV);
                        },
                        10));
        Job lost = enqueue(lostWorker);
        CompletableFuture<Integer> run = runDueInBackground(lostWorker);
        hang.awaitEntered();
        clock.advance(PAST_LEASE);
        Jobs survivor = instance("b", returning(CSV));
        Job fresh = enqueue(survivor);
        listenerRefuses = job -> job.id().equals(lost.id());

        assertThat(survivor.runDue()).as("other jobs still run").isEqualTo(1);

        assertThat(job(survivor, fresh).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(job(survivor, lost).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(events(lost)).isEmpty();
        listenerRefuses = job -> false;
        assertThat(survivor.runDue()).isZero();
        assertThat(job(survivor, lost).status()).isEqualTo(JobStatus.FAILED);
        assertThat(job(survivor, lost).error().type()).isEqualTo("worker-lost");
        assertThat(events(lost)).containsExactly("failed");
        hang.open();
        within(run);
    }

    @Test
    void throwingListenerFailsACancelAndLeavesTheJobQueued() throws Exception {
        Jobs jobs = instance("a", returning(CSV));
        Job queued = enqueue(jobs);
        listenerRefuses = job -> true;

        assertThatThrownBy(() -> jobs.cancel(OWNER, queued.id())).isInstanceOf(JobStoreException.class);

        assertThat(job(jobs, queued).status()).isEqualTo(JobStatus.QUEUED);
        assertThat(events(queued)).isEmpty();
        assertThat(jobs.metrics().canceled()).isZero();
    }

    // --- enqueue in the caller's transaction -------------------------------------------------

    @Test
    void enqueueInARolledBackTransactionLeavesNoJob() throws Exception {
        Jobs jobs = instance("a", returning(CSV));
        Job job;
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            job = jobs.enqueue(tx, new NewJob(OWNER, KIND, "{}"));
            tx.rollback();
            tx.setAutoCommit(true);
        }

        assertThat(jobs.find(OWNER, job.id())).isEmpty();
        assertThat(jobs.runDue()).isZero();
    }

    @Test
    void enqueueInACommittedTransactionIsRunAfterTheCommit() throws Exception {
        Jobs jobs = instance("a", returning(CSV));
        Job job;
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            job = jobs.enqueue(tx, new NewJob(OWNER, KIND, "{}"));
            assertThat(jobs.find(OWNER, job.id()))
                    .as("not visible before the commit")
                    .isEmpty();
            tx.commit();
            tx.setAutoCommit(true);
        }
        jobs.wakeUp();

        assertThat(jobs.runDue()).isEqualTo(1);
        assertThat(job(jobs, job).status()).isEqualTo(JobStatus.SUCCEEDED);
    }

    // --- close -------------------------------------------------------------------------------

    @Test
    void closeLetsRunningJobsFinishWithinTheShutdownTimeout() throws Exception {
        Gate gate = new Gate();
        Jobs jobs = build(builder("a")
                .shutdownTimeout(Gate.DEADLINE)
                .handler(
                        KIND,
                        context -> {
                            gate.pass();
                            return JobOutput.of("text/plain", CSV);
                        },
                        1));
        Job queued = enqueue(jobs);
        CompletableFuture<Integer> run = runDueInBackground(jobs);
        gate.awaitEntered();

        CompletableFuture<Void> closing = CompletableFuture.runAsync(jobs::close, background);
        gate.open();
        within(closing);

        assertThat(within(run)).isEqualTo(1);
        assertThat(job(jobs, queued).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThatThrownBy(jobs::runDue).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closeHandsBackTheClaimsOfJobsStillRunningAfterTheTimeout() throws Exception {
        Gate gate = new Gate();
        AtomicReference<Throwable> interrupted = new AtomicReference<>();
        Jobs closing = build(builder("a")
                .shutdownTimeout(Duration.ZERO)
                .handler(
                        KIND,
                        context -> {
                            try {
                                gate.pass();
                            } catch (InterruptedException e) {
                                interrupted.set(e);
                                throw e;
                            }
                            return JobOutput.of("text/plain", "from a".getBytes(UTF_8));
                        },
                        1));
        Jobs other = instance("b", returning("from b".getBytes(UTF_8)));
        Job queued = enqueue(closing);
        CompletableFuture<Integer> run = runDueInBackground(closing);
        gate.awaitEntered();

        closing.close();

        assertThat(within(run)).isEqualTo(1);
        assertThat(interrupted.get()).isInstanceOf(InterruptedException.class);
        Job handedBack = job(other, queued);
        assertThat(handedBack.status()).isEqualTo(JobStatus.QUEUED);
        assertThat(handedBack.attempts()).as("the attempt is not counted").isZero();
        assertThat(handedBack.startedAt()).isNull();
        assertThat(events(queued)).isEmpty();
        assertThat(other.runDue()).as("at once, no lease to wait for").isEqualTo(1);
        assertThat(job(other, queued).attempts()).isEqualTo(1);
        assertThat(download(other, queued)).isEqualTo("from b".getBytes(UTF_8));
    }

    @Test
    void closeCancelsAJobHandedBackWithACancelRequested() throws Exception {
        Gate gate = new Gate();
        Jobs closing = build(builder("a")
                .shutdownTimeout(Duration.ZERO)
                .handler(
                        KIND,
                        context -> {
                            gate.pass();
                            return JobOutput.of("text/plain", CSV);
                        },
                        1));
        Job queued = enqueue(closing);
        CompletableFuture<Integer> run = runDueInBackground(closing);
        gate.awaitEntered();
        Jobs api = build(builder("api"));
        api.cancel(OWNER, queued.id());

        closing.close();

        within(run);
        assertThat(job(api, queued).status()).isEqualTo(JobStatus.CANCELED);
        assertThat(events(queued)).containsExactly("canceled");
    }

    @Test
    void startedInstanceRunsJobsInTheBackgroundAndItsThreadsEndOnClose() {
        Jobs jobs = build(builder("a").pollInterval(Duration.ofMillis(20)).handler(KIND, returning(CSV), 2));
        jobs.start();
        List<Job> queued = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            queued.add(enqueue(jobs));
        }

        await().atMost(Gate.DEADLINE)
                .until(() -> queued.stream().allMatch(job -> job(jobs, job).status() == JobStatus.SUCCEEDED));
        assertThatThrownBy(jobs::start).isInstanceOf(IllegalStateException.class);
        jobs.close();

        assertThat(threads.made()).as("loop, heartbeat, purge and five workers").isEqualTo(8);
        assertThat(jobs.metrics().succeeded()).isEqualTo(5);
        // threads.assertAllEnded() runs after every test
    }

    @Test
    void defaultWorkerPoolRunsJobsOnVirtualThreadsThatEndOnClose() throws Exception {
        AtomicReference<Thread> worker = new AtomicReference<>();
        AtomicBoolean virtual = new AtomicBoolean();
        Jobs jobs = build(builderWithDefaultThreads("a")
                .pollInterval(Duration.ofMillis(20))
                .handler(
                        KIND,
                        context -> {
                            worker.set(Thread.currentThread());
                            virtual.set(Thread.currentThread().isVirtual());
                            return JobOutput.of("text/csv", CSV);
                        },
                        1));
        jobs.start();
        Job queued = enqueue(jobs);

        await().atMost(Gate.DEADLINE).until(() -> job(jobs, queued).status() == JobStatus.SUCCEEDED);
        jobs.close();

        assertThat(virtual.get()).as("the handler ran on a virtual thread").isTrue();
        assertThat(worker.get().getName()).startsWith("retrysafe-jobs-a-");
        worker.get().join(Gate.DEADLINE);
        assertThat(worker.get().isAlive()).as("the worker ended with close").isFalse();
        assertThat(threads.made()).as("the recording factory was not used").isZero();
    }

    // --- the observer ------------------------------------------------------------------------

    @Test
    void observerSeesTheClaimEachStoredProgressAndTheEnd() throws Exception {
        Jobs jobs = instance("a", context -> {
            context.progress(40);
            context.progress(40); // not higher: not stored, not told
            context.progress(70);
            return JobOutput.of("text/csv", CSV);
        });
        enqueue(jobs);

        assertThat(jobs.runDue()).isEqualTo(1);

        assertThat(observed).containsExactly("running/0", "running/40", "running/70", "succeeded/100");
    }

    @Test
    void observerSeesCancelsAndFailures() throws Exception {
        Gate gate = new Gate();
        Jobs jobs = instance("a", context -> {
            gate.pass();
            context.checkpoint();
            throw new AssertionError("the checkpoint let a canceled job go on");
        });
        Job queuedThenCanceled = enqueue(jobs);
        jobs.cancel(OWNER, queuedThenCanceled.id());
        jobs.cancel(OWNER, queuedThenCanceled.id()); // nothing changes: nothing told
        Job running = enqueue(jobs);
        CompletableFuture<Integer> run = runDueInBackground(jobs);
        gate.awaitEntered();

        jobs.cancel(OWNER, running.id());
        jobs.cancel(OWNER, running.id());
        gate.open();
        within(run);
        Jobs failing = instance("b", context -> {
            throw new IllegalStateException("boom");
        });
        jobs.close();
        enqueue(failing);
        failing.runDue();

        assertThat(observed)
                .containsExactly(
                        "canceled/0/cancel",
                        "running/0",
                        "running/0/cancel",
                        "canceled/0/cancel",
                        "running/0",
                        "failed/0");
    }

    @Test
    void throwingObserverDisturbsNothing() throws Exception {
        observerThrows = true;
        Jobs jobs = instance("a", context -> {
            context.progress(50);
            return JobOutput.of("text/csv", CSV);
        });
        Job queued = enqueue(jobs);

        assertThat(jobs.runDue()).isEqualTo(1);

        assertThat(job(jobs, queued).status()).isEqualTo(JobStatus.SUCCEEDED);
        assertThat(observed).containsExactly("running/0", "running/50", "succeeded/100");
    }

    // --- statistics --------------------------------------------------------------------------

    @Test
    void statsCountQueuedAndRunningJobsAndTheOldestWait() throws Exception {
        Gate gate = new Gate();
        Jobs jobs = build(builder("a")
                .handler(
                        KIND,
                        context -> {
                            gate.pass();
                            return JobOutput.of("text/plain", CSV);
                        },
                        1));
        assertThat(jobs.stats()).isEqualTo(new JobStats(0, 0, null));
        enqueue(jobs);
        enqueue(jobs);
        clock.advance(Duration.ofSeconds(5));
        enqueue(jobs);
        CompletableFuture<Integer> run = runDueInBackground(jobs);
        gate.awaitEntered();
        clock.advance(Duration.ofSeconds(2));

        assertThat(jobs.stats()).isEqualTo(new JobStats(2, 1, Duration.ofSeconds(7)));
        gate.open();
        within(run);
        assertThat(jobs.stats()).isEqualTo(new JobStats(2, 0, Duration.ofSeconds(7)));
    }

    @Test
    void jobRecordReadsBackExactlyAsEnqueued() {
        Jobs jobs = instance("a", returning(CSV));
        String params = "{\"note\":\"caf\u00e9 \u2603 \ud83d\ude00\"}" + "x".repeat(60_000);

        Job queued = jobs.enqueue(new NewJob(OWNER, KIND, params));

        Optional<Job> read = jobs.find(OWNER, queued.id());
        assertThat(read).contains(queued);
        assertThat(read.orElseThrow().params()).isEqualTo(params);
    }
}

package dev.retrysafe.server.reports;

import dev.retrysafe.jobs.CancelResult;
import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.Jobs;
import dev.retrysafe.jobs.NewJob;
import dev.retrysafe.jobs.ResultLookup;
import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.http.FieldError;
import dev.retrysafe.server.http.ListQuery;
import dev.retrysafe.server.http.Page;
import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.ProblemType;
import dev.retrysafe.server.http.Problems;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.RequestEffects;
import dev.retrysafe.server.http.Responses;
import dev.retrysafe.server.payments.RequestBodies;
import io.javalin.http.Context;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * The handlers of {@code POST /v1/reports}, {@code /v1/jobs} and {@code /v1/jobs/{id}}: the asynchronous
 * request-reply pattern. Every lookup is scoped to the caller's account, so another account's job
 * id answers {@code 404} exactly like an unknown one. This class is threadsafe.
 */
public final class JobRoutes {

    /** Seconds a client should wait before polling an unfinished job again. */
    static final String POLL_AFTER_SECONDS = "1";

    private static final int MAX_ID_LENGTH = 64;

    private final Jobs jobs;
    private final Transactions transactions;
    private final Clock clock;
    private final int maxBodyBytes;

    JobRoutes(Jobs jobs, Transactions transactions, Clock clock, int maxBodyBytes) {
        this.jobs = jobs;
        this.transactions = transactions;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    /**
     * {@code POST /v1/reports}: stores the job in the request's transaction (with the idempotency
     * key's stored answer, so a retried POST replays this job and never makes a second one) and
     * answers {@code 202} with {@code Location} and {@code Retry-After}.
     */
    public void create(Context ctx) throws Exception {
        Account account = RequestAccount.require(ctx.req());
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Optional<ReportRequest> read = RequestBodies.read(ctx, maxBodyBytes, body -> ReportRequest.parse(body, now));
        if (read.isEmpty()) {
            return;
        }
        ReportRequest request = read.get();
        NewJob newJob = new NewJob(account.id(), request.kind(), PaymentsCsv.params(request.from(), request.to()));
        Job job = transactions.inTransaction(ctx.req(), c -> jobs.enqueue(c, newJob));
        RequestEffects.jobEnqueued();
        ctx.header("Location", JobJson.path(job));
        ctx.header("Retry-After", POLL_AFTER_SECONDS);
        Responses.json(ctx, 202, JobJson.of(job));
    }

    /** {@code GET /v1/jobs/{id}}: the job; while unfinished with {@code Retry-After}. */
    public void get(Context ctx) {
        Optional<Job> job = find(ctx);
        if (job.isEmpty()) {
            notFound(ctx);
            return;
        }
        respond(ctx, 200, job.get());
    }

    /**
     * {@code GET /v1/jobs?limit=&starting_after=}: the account's jobs, newest first, each as
     * {@code GET /v1/jobs/{id}} shows it. A cursor that is not one of the account's jobs (any
     * more) answers a validation problem: job ids are random, so there is no place to resume from.
     */
    public void list(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        ListQuery.Parsed parsed = ListQuery.parse(
                ctx.queryParam("limit"), ctx.queryParam("starting_after"), "job_", JobRoutes::plausible);
        if (parsed instanceof ListQuery.Invalid invalid) {
            Problems.respond(ctx, Problem.invalid(invalid.errors()));
            return;
        }
        ListQuery q = ((ListQuery.Valid) parsed).query();
        jobs.list(account.id(), q.startingAfter(), q.limit())
                .ifPresentOrElse(
                        page -> Responses.json(ctx, 200, new Page<>(page.jobs(), page.hasMore()).json(JobJson::of)),
                        () -> Problems.respond(
                                ctx,
                                Problem.invalid(List.of(
                                        new FieldError("starting_after", "must be the id of a job in this account")))));
    }

    /**
     * {@code DELETE /v1/jobs/{id}}: a queued job is canceled at once ({@code 200}); a running one
     * is asked to stop and does at its next checkpoint ({@code 202}, the same again on a repeat);
     * a canceled one answers {@code 200} again; a succeeded or failed one {@code 409}.
     */
    public void cancel(Context ctx) {
        String id = ctx.pathParam("id");
        if (!plausible(id)) {
            notFound(ctx);
            return;
        }
        switch (jobs.cancel(RequestAccount.require(ctx.req()).id(), id)) {
            case CancelResult.NotFound n -> notFound(ctx);
            case CancelResult.Canceled c -> respond(ctx, 200, c.job());
            case CancelResult.CancelRequested r -> respond(ctx, 202, r.job());
            case CancelResult.AlreadyFinished f ->
                Problems.respond(
                        ctx,
                        Problem.of(
                                        ProblemType.JOB_FINISHED,
                                        "Job " + f.job().id() + " has already "
                                                + f.job().status().wireName() + "; there is nothing to cancel.")
                                .with("job", JobJson.of(f.job())));
        }
    }

    /**
     * {@code GET /v1/jobs/{id}/result}: the stored file, streamed from the database; {@code 409}
     * while there is none, {@code 410} once it is past its retention.
     */
    public void result(Context ctx) throws Exception {
        String id = ctx.pathParam("id");
        String owner = RequestAccount.require(ctx.req()).id();
        ResultLookup lookup = plausible(id) ? jobs.result(owner, id) : new ResultLookup.NotFound();
        switch (lookup) {
            case ResultLookup.NotFound n -> notFound(ctx);
            case ResultLookup.NotReady r -> {
                Problem p = Problem.of(
                                ProblemType.JOB_RESULT_NOT_READY,
                                "Job " + id + " is " + r.job().status().wireName() + " and has no result.")
                        .with("job", JobJson.of(r.job()));
                // a failed or canceled job never gets a result: asking again cannot help
                Problems.respond(
                        ctx,
                        r.job().status().finished()
                                ? p.with("retryable", false)
                                : p.withHeader("Retry-After", POLL_AFTER_SECONDS));
            }
            case ResultLookup.Expired e ->
                Problems.respond(
                        ctx,
                        Problem.of(
                                        ProblemType.JOB_RESULT_EXPIRED,
                                        "The result of job " + id + " expired at "
                                                + e.job().resultExpiresAt() + ".")
                                .with("job", JobJson.of(e.job())));
            case ResultLookup.Ready ready -> {
                ctx.status(200);
                ctx.contentType(ready.contentType());
                ctx.header("Content-Disposition", "attachment; filename=\"" + id + ".csv\"");
                ctx.header("Content-Length", Long.toString(ready.size()));
                if (!"HEAD".equals(ctx.method().name())) {
                    OutputStream out = ctx.res().getOutputStream();
                    if (!jobs.writeResult(owner, id, out)) {
                        // purged between the lookup and the read: the headers are gone, so end the
                        // response short, which the client sees as a truncated download
                        throw new IllegalStateException("result of " + id + " vanished while being sent");
                    }
                    out.flush();
                }
            }
        }
    }

    private Optional<Job> find(Context ctx) {
        String id = ctx.pathParam("id");
        return plausible(id) ? jobs.find(RequestAccount.require(ctx.req()).id(), id) : Optional.empty();
    }

    private static boolean plausible(String id) {
        return id.startsWith("job_") && id.length() <= MAX_ID_LENGTH;
    }

    private static void respond(Context ctx, int status, Job job) {
        if (!job.status().finished()) {
            ctx.header("Retry-After", POLL_AFTER_SECONDS);
        }
        // a job is a resource that changes by itself: caches may hold it for at most the poll interval
        ctx.header("Cache-Control", "private, max-age=" + POLL_AFTER_SECONDS);
        Responses.json(ctx, status, JobJson.of(job));
    }

    private static void notFound(Context ctx) {
        String id = ctx.pathParam("id");
        Problems.respond(ctx, Problem.notFound("job", "job_", id));
    }
}

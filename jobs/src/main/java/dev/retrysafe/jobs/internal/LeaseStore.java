package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobListener;
import dev.retrysafe.jobs.JobProblem;
import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.jobs.JobStoreException;
import dev.retrysafe.leasedwork.internal.Jdbc;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The jobs as workers see them: claims, heartbeats, progress, and the ends of runs. Never holds a
 * connection while a handler runs. Lock order: a claim locks its kind's row, then job rows; every
 * other writer locks one job row only (then the listener's own rows), so no two writers wait for
 * each other in a cycle. Every write of a worker names its claim's lease token and expects the
 * job to be running, so a worker whose claim was taken over or handed back changes nothing.
 * Threadsafe.
 */
final class LeaseStore {

    /** What a heartbeat or a progress write learned about a claim. */
    enum LeaseState {
        /** Still held, no cancel requested. */
        HELD,
        /** Still held, and a cancel was requested. */
        CANCEL_REQUESTED,
        /** Taken over by another worker, handed back, or the job ended. */
        LOST
    }

    /**
     * What handing a claim back did, and the job as it then is (requeued or canceled; {@code null}
     * when the claim was gone).
     */
    record Released(Release release, @Nullable Job job) {}

    /** What handing a claim back did. */
    enum Release {
        /** The job is queued again. */
        REQUEUED,
        /** A cancel had been requested: the job is canceled instead. */
        CANCELED,
        /** The claim was no longer held. */
        GONE
    }

    /**
     * A job claimed by this instance.
     *
     * @param job      the job as claimed
     * @param token    the claim's lease token
     * @param takeover whether it was taken over from a lost worker
     */
    record Claim(Job job, String token, boolean takeover) {}

    /**
     * One claim to extend.
     *
     * @param id    the job
     * @param token the claim's lease token
     */
    record Lease(String id, String token) {}

    private final Jdbc jdbc;
    private final JobListener listener;

    LeaseStore(DataSource dataSource, JobListener listener) {
        this.jdbc = new Jdbc(dataSource, JobStoreException::new);
        this.listener = listener;
    }

    // --- claims ------------------------------------------------------------------------------

    /** Makes sure the lock row of {@code kind} exists. */
    void ensureKind(String kind) {
        jdbc.autocommit("register job kind " + kind, c -> {
            try {
                return Statements.update(c, JobSql.ENSURE_KIND, kind, kind);
            } catch (SQLException e) {
                if (Jdbc.isUniqueViolation(e)) {
                    return 0; // another instance inserted it at the same moment
                }
                throw e;
            }
        });
    }

    /** Whether {@code kind} has a queued job or a running one whose lease ran out (no lock taken). */
    boolean hasDue(String kind, Instant now) {
        return jdbc.autocommit("look for due jobs", c -> {
            try (PreparedStatement s = c.prepareStatement(JobSql.ANY_QUEUED)) {
                s.setString(1, kind);
                try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                        return true;
                    }
                }
            }
            try (PreparedStatement s = c.prepareStatement(JobSql.ANY_EXPIRED)) {
                s.setString(1, kind);
                s.setLong(2, now.toEpochMilli());
                try (ResultSet r = s.executeQuery()) {
                    return r.next();
                }
            }
        });
    }

    /**
     * A running job whose lease ran out and which must not run again.
     *
     * @param id       the job
     * @param token    its expired claim
     * @param attempts its claims so far
     * @param cancel   whether a cancel was requested (it ends canceled, else failed)
     */
    record Exhausted(String id, String token, int attempts, boolean cancel) {}

    /**
     * Running jobs of {@code kind} whose lease ran out and which must not run again: out of
     * attempts, or with a cancel requested.
     */
    List<Exhausted> exhausted(String kind, Instant now, int limit) {
        return jdbc.autocommit("look for jobs out of workers", c -> {
            List<Exhausted> rows = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement(JobSql.EXHAUSTED)) {
                s.setString(1, kind);
                s.setLong(2, now.toEpochMilli());
                s.setInt(3, limit);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        rows.add(new Exhausted(r.getString(1), r.getString(2), r.getInt(3), r.getBoolean(4)));
                    }
                }
            }
            return rows;
        });
    }

    /**
     * Ends {@code job}, if its expired claim is still the one read: canceled if a cancel was
     * requested, else failed ({@code worker-lost}). In a transaction of its own with the listener,
     * so a failing listener holds up only this job. Empty if another instance ended or took it
     * over first.
     */
    Optional<Job> endExhausted(Exhausted job, Instant now) {
        JobStatus status = job.cancel() ? JobStatus.CANCELED : JobStatus.FAILED;
        JobProblem problem = job.cancel() ? null : Problems.workerLost(job.attempts());
        return jdbc.transaction("end job " + job.id() + " after its lease ran out", c -> {
            if (end(c, job.id(), job.token(), now, status, problem, true) == 0) {
                return Optional.<Job>empty();
            }
            return Optional.of(Statements.announce(c, job.id(), now, listener));
        });
    }

    /**
     * Claims jobs of {@code kind} for this instance, in one transaction that holds the kind's lock:
     * first running jobs whose lease ran out (taken over: the count of running jobs does not
     * change), then queued jobs while fewer than {@code maxConcurrency} jobs of the kind run.
     *
     * @param free  most jobs to claim (this instance's free workers)
     * @param owner the instance id the claims carry
     */
    List<Claim> claim(String kind, int maxConcurrency, int free, String owner, Instant now, Duration lease) {
        long leaseEnd = now.plus(lease).toEpochMilli();
        return jdbc.transaction("claim jobs of kind " + kind, c -> {
            try (PreparedStatement s = c.prepareStatement(JobSql.LOCK_KIND)) {
                s.setString(1, kind);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        throw new SQLException("no lock row for job kind " + kind + " in job_kinds");
                    }
                }
            }
            long running = Statements.count(c, JobSql.COUNT_RUNNING, kind);
            List<Taken> taken = new ArrayList<>();
            for (Held expired : expired(c, kind, now, free)) {
                String token = JobIds.leaseToken();
                if (Statements.update(
                                c,
                                JobSql.TAKE_OVER,
                                owner,
                                token,
                                leaseEnd,
                                now.toEpochMilli(),
                                expired.id(),
                                expired.token(),
                                now.toEpochMilli())
                        == 1) {
                    taken.add(new Taken(expired.id(), token, true));
                }
            }
            int room = (int) Math.min(free - taken.size(), Math.max(0, maxConcurrency - running));
            if (room > 0) {
                for (String id : ids(c, JobSql.QUEUED, kind, room)) {
                    String token = JobIds.leaseToken();
                    if (Statements.update(c, JobSql.CLAIM_QUEUED, owner, token, leaseEnd, now.toEpochMilli(), id)
                            == 1) {
                        taken.add(new Taken(id, token, false));
                    }
                }
            }
            List<Claim> claims = new ArrayList<>(taken.size());
            for (Taken t : taken) {
                claims.add(new Claim(Statements.byId(c, t.id(), now), t.token(), t.takeover()));
            }
            return claims;
        });
    }

    /** A claim read from a row: the job and its lease token. */
    private record Held(String id, String token) {}

    /** A claim made in this transaction. */
    private record Taken(String id, String token, boolean takeover) {}

    private static List<Held> expired(Connection c, String kind, Instant now, int limit) throws SQLException {
        List<Held> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(JobSql.EXPIRED)) {
            s.setString(1, kind);
            s.setLong(2, now.toEpochMilli());
            s.setInt(3, limit);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    rows.add(new Held(r.getString(1), r.getString(2)));
                }
            }
        }
        return rows;
    }

    private static List<String> ids(Connection c, String sql, String kind, int limit) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, kind);
            s.setInt(2, limit);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getString(1));
                }
            }
        }
        return ids;
    }

    // --- while running -----------------------------------------------------------------------

    /** Extends every lease in {@code leases} to {@code leaseEnd} and reads their cancel flags. */
    Map<Lease, LeaseState> extend(Collection<Lease> leases, Instant leaseEnd) {
        if (leases.isEmpty()) {
            return Map.of();
        }
        // one auto-commit statement per job: a heartbeat never holds two job rows at once
        return jdbc.autocommit("extend job leases", c -> {
            Map<Lease, LeaseState> states = new LinkedHashMap<>();
            for (Lease lease : leases) {
                int extended = Statements.update(c, JobSql.EXTEND, leaseEnd.toEpochMilli(), lease.id(), lease.token());
                states.put(lease, extended == 0 ? LeaseState.LOST : leaseState(c, lease.id(), lease.token()));
            }
            return states;
        });
    }

    /** Stores {@code percent} as the claim's progress (if higher) and reads its cancel flag. */
    LeaseState progress(String id, String token, int percent) {
        return jdbc.autocommit("store the progress of job " + id, c -> {
            Statements.update(c, JobSql.PROGRESS, percent, id, token, percent);
            return leaseState(c, id, token);
        });
    }

    private static LeaseState leaseState(Connection c, String id, String token) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(JobSql.CANCEL_FLAG)) {
            s.setString(1, id);
            s.setString(2, token);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return LeaseState.LOST;
                }
                return r.getBoolean(1) ? LeaseState.CANCEL_REQUESTED : LeaseState.HELD;
            }
        }
    }

    // --- ends --------------------------------------------------------------------------------

    /**
     * Records a success with the result in {@code spool}, if the claim is still held; empty if it
     * is not (the outcome is discarded).
     */
    Optional<Job> succeed(String id, String token, Instant now, String contentType, Spool spool, Instant expiresAt) {
        return jdbc.transaction("record the success of job " + id, c -> {
            if (Statements.update(
                            c,
                            JobSql.SUCCEED,
                            now.toEpochMilli(),
                            contentType,
                            spool.size(),
                            expiresAt.toEpochMilli(),
                            id,
                            token)
                    == 0) {
                return Optional.<Job>empty();
            }
            try (PreparedStatement s = c.prepareStatement(JobSql.INSERT_RESULT);
                    InputStream body = spool.input()) {
                s.setString(1, id);
                s.setLong(2, expiresAt.toEpochMilli());
                s.setBinaryStream(3, body, spool.size());
                s.executeUpdate();
            } catch (IOException e) {
                throw new SQLException("cannot read the spooled result of job " + id, e);
            }
            return Optional.of(Statements.announce(c, id, now, listener));
        });
    }

    /** Records a failure or a cancel seen by the worker, if the claim is still held. */
    Optional<Job> end(String id, String token, Instant now, JobStatus status, @Nullable JobProblem problem) {
        return jdbc.transaction("record the end of job " + id, c -> {
            if (end(c, id, token, now, status, problem, false) == 0) {
                return Optional.<Job>empty();
            }
            return Optional.of(Statements.announce(c, id, now, listener));
        });
    }

    /** Ends a held claim; with {@code onlyIfExpired} only if its lease ran out by {@code now}. */
    private static int end(
            Connection c,
            String id,
            String token,
            Instant now,
            JobStatus status,
            @Nullable JobProblem problem,
            boolean onlyIfExpired)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(onlyIfExpired ? JobSql.END_EXPIRED : JobSql.END)) {
            s.setString(1, status.wireName());
            s.setLong(2, now.toEpochMilli());
            Jdbc.setText(s, 3, problem == null ? null : problem.type());
            Jdbc.setText(s, 4, problem == null ? null : problem.title());
            Jdbc.setText(s, 5, problem == null ? null : problem.detail());
            s.setString(6, id);
            s.setString(7, token);
            if (onlyIfExpired) {
                s.setLong(8, now.toEpochMilli());
            }
            return s.executeUpdate();
        }
    }

    /**
     * Hands a claim back (closing instance): the job is queued again in its old place with the
     * attempt not counted, or canceled if a cancel was requested.
     */
    Released release(String id, String token, Instant now) {
        return jdbc.transaction("hand job " + id + " back", c -> {
            boolean cancel;
            try (PreparedStatement s = c.prepareStatement(JobSql.LOCK_CLAIM)) {
                s.setString(1, id);
                s.setString(2, token);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        return new Released(Release.GONE, null);
                    }
                    cancel = r.getBoolean(1);
                }
            }
            if (cancel) {
                end(c, id, token, now, JobStatus.CANCELED, null, false);
                return new Released(Release.CANCELED, Statements.announce(c, id, now, listener));
            }
            Statements.update(c, JobSql.RELEASE, id, token);
            return new Released(Release.REQUEUED, Statements.byId(c, id, now));
        });
    }
}

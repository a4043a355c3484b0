package dev.retrysafe.jobs.internal;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobProblem;
import dev.retrysafe.jobs.JobStatus;
import dev.retrysafe.leasedwork.internal.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** Reads rows of {@code jobs} (the columns of {@link JobSql#COLUMNS}) into {@link Job}s. Stateless. */
final class JobRows {

    private JobRows() {}

    /** The job in the current row; {@code now} decides whether its result has expired. */
    static Job job(ResultSet r, Instant now) throws SQLException {
        String errorType = r.getString("error_type");
        JobProblem error = errorType == null
                ? null
                : new JobProblem(errorType, r.getString("error_title"), r.getString("error_detail"));
        Instant resultExpiresAt = Rows.millis(r, "result_expires_at");
        boolean expired = r.getBoolean("result_purged") || (resultExpiresAt != null && !now.isBefore(resultExpiresAt));
        return new Job(
                r.getString("id"),
                r.getString("owner"),
                r.getString("kind"),
                JobStatus.fromWireName(r.getString("status")),
                r.getString("params"),
                Instant.ofEpochMilli(r.getLong("created_at")),
                Rows.millis(r, "started_at"),
                Rows.millis(r, "finished_at"),
                r.getInt("progress"),
                r.getInt("attempts"),
                r.getInt("max_attempts"),
                r.getBoolean("cancel_requested"),
                error,
                resultExpiresAt,
                expired,
                r.getString("result_content_type"),
                r.getLong("result_size"));
    }
}

package com.example.payments.reports;

import dev.retrysafe.jobs.JobContext;
import dev.retrysafe.jobs.JobHandler;
import dev.retrysafe.jobs.JobOutput;
import dev.retrysafe.spring.JobKind;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The {@code payments_csv} report: the account's payments as CSV, run by Retrysafe's job workers
 * (on any instance, surviving restarts). Threadsafe.
 */
@Component
@JobKind(value = "payments_csv", maxConcurrency = 2)
class PaymentsCsv implements JobHandler {

    private static final String ROWS =
            "SELECT id, amount, currency, status, created_at FROM payments" + " WHERE account_id = ? ORDER BY id";

    private final JdbcTemplate jdbc;

    PaymentsCsv(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public JobOutput run(JobContext context) {
        StringBuilder csv = new StringBuilder("id,amount,currency,status,created_at\n");
        jdbc.query(
                ROWS,
                rs -> {
                    csv.append(rs.getString(1))
                            .append(',')
                            .append(rs.getLong(2))
                            .append(',')
                            .append(rs.getString(3))
                            .append(',')
                            .append(rs.getString(4))
                            .append(',')
                            .append(rs.getObject(5, OffsetDateTime.class).withOffsetSameInstant(ZoneOffset.UTC))
                            .append('\n');
                },
                context.job().owner());
        context.progress(100);
        return JobOutput.of("text/csv; charset=utf-8", csv.toString().getBytes(StandardCharsets.UTF_8));
    }
}

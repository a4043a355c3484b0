package dev.retrysafe.server.reports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.jobs.JobContext;
import dev.retrysafe.jobs.JobHandler;
import dev.retrysafe.jobs.JobOutput;
import dev.retrysafe.server.http.Json;
import dev.retrysafe.server.payments.Payment;
import dev.retrysafe.server.payments.PaymentExport;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@code payments_csv} report: every payment of the job's account created in the
 * requested range, oldest first, as RFC 4180 CSV (UTF-8, CRLF line ends, a header row). The rows
 * are streamed from the database into the job's result, never held in memory; progress is stored
 * as rows are written and every write is a cancellation checkpoint. Text a customer typed (the
 * description) that a spreadsheet would run as a formula ({@code = + - @}, tab, CR at its start)
 * is prefixed with {@code '}, the usual defence against CSV injection. With a minimum duration the
 * report is stretched for demos and tests through its {@link ReportPacing}, which by default
 * still checks for cancellation every 50 ms. Threadsafe.
 */
final class PaymentsCsv implements JobHandler {

    /** The columns, in order. */
    static final String HEADER = "id,created_at,amount,amount_refunded,currency,status,description";

    static final String CONTENT_TYPE = "text/csv; charset=utf-8";
    private static final long PAUSE_MILLIS = 50;

    private final DataSource dataSource;
    private final Duration minDuration;
    private final ReportPacing pacing;

    PaymentsCsv(DataSource dataSource, Duration minDuration, ReportPacing pacing) {
        this.dataSource = dataSource;
        this.minDuration = minDuration;
        this.pacing = pacing;
    }

    /** The job's parameters as stored: the range, with {@code to} fixed when the report was asked for. */
    static String params(@Nullable Instant from, Instant to) {
        return new String(
                Json.bytes(Map.of(
                        "from", DateTimeFormatter.ISO_INSTANT.format(from == null ? Instant.EPOCH : from),
                        "to", DateTimeFormatter.ISO_INSTANT.format(to))),
                StandardCharsets.UTF_8);
    }

    @Override
    public JobOutput run(JobContext context) throws Exception {
        JsonNode params = Json.MAPPER.readTree(context.job().params());
        Instant from = Instant.parse(params.path("from").asText());
        Instant to = Instant.parse(params.path("to").asText());
        String accountId = context.job().owner();
        long started = MonotonicClock.nanoTime();
        return JobOutput.streamed(CONTENT_TYPE, out -> {
            Writer csv = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
            try {
                write(context, accountId, from, to, csv);
                pacing.pace(context, minDuration, started);
            } catch (SQLException e) {
                throw new IOException("reading payments failed", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while stretching the report", e);
            }
            csv.flush();
        });
    }

    private void write(JobContext context, String accountId, Instant from, Instant to, Writer csv)
            throws SQLException, IOException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            c.setReadOnly(true);
            try {
                long total = PaymentExport.count(c, accountId, from, to);
                csv.write(HEADER);
                csv.write("\r\n");
                long[] written = {0};
                int[] reported = {0};
                PaymentExport.forEach(c, accountId, from, to, p -> {
                    csv.write(row(p));
                    written[0]++;
                    int percent = (int) Math.min(99, written[0] * 100 / Math.max(1, total));
                    if (percent > reported[0]) {
                        reported[0] = percent;
                        context.progress(percent);
                    } else if (written[0] % 1000 == 0) {
                        context.checkpoint();
                    }
                });
            } catch (IOException | SQLException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            } finally {
                c.rollback();
            }
        }
    }

    /** {@link ReportPacing#SLEEP}: waits out the least duration, storing progress by time, checking for cancels. */
    static void stretch(JobContext context, Duration leastDuration, long startedNanos) throws InterruptedException {
        long total = leastDuration.toNanos();
        long elapsed;
        while ((elapsed = MonotonicClock.nanoTime() - startedNanos) < total) {
            context.progress((int) Math.min(99, elapsed * 100 / total));
            Thread.sleep(Math.min(PAUSE_MILLIS, Math.max(1, (total - elapsed) / 1_000_000)));
        }
        context.checkpoint();
    }

    static String row(Payment p) {
        return p.id() + ',' + DateTimeFormatter.ISO_INSTANT.format(p.createdAt()) + ',' + p.amount() + ','
                + p.amountRefunded() + ',' + p.currency() + ',' + p.status() + ',' + field(p.description()) + "\r\n";
    }

    /** One RFC 4180 field, quoted when needed, with formula-looking text defused. */
    static String field(@Nullable String text) {
        if (text == null || text.isEmpty()) {
            return "";
        }
        String value = switch (text.charAt(0)) {
            case '=', '+', '-', '@', '\t', '\r' -> "'" + text;
            default -> text;
        };
        boolean quote = value.indexOf(',') >= 0
                || value.indexOf('"') >= 0
                || value.indexOf('\n') >= 0
                || value.indexOf('\r') >= 0;
        return quote ? '"' + value.replace("\"", "\"\"") + '"' : value;
    }
}

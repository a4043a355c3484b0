package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.jobs.JobContext;
import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.server.config.JobsConfig;
import dev.retrysafe.server.reports.ReportPacing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Reports as asynchronous jobs over real HTTP ({@code POST /v1/reports}, {@code /v1/jobs/{id}}).
 * The server runs one worker and stretches every report to {@value #REPORT_MILLIS} ms, so a poll
 * sees a job running, and a second report stays queued behind the first. A test that needs a
 * report to stay running between two checkpoints holds it with {@link HeldReports}. A third
 * account, used only by the range tests, has payments no other test's report sees.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ReportsApiContract {

    static final long REPORT_MILLIS = 2000;
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final HeldReports held = new HeldReports();
    private TestServer server;
    private Api api;
    private Api other;
    /** The account of the range tests alone. */
    private Api ranged;

    /** Starts the server under test from the builder {@code setup} returns. */
    abstract TestServer startServer(UnaryOperator<TestServer.Builder> setup);

    /** Runs after the server stopped, e.g. to drop its database. */
    void afterServerStopped() {}

    @BeforeAll
    void start() {
        String rangedKey = ApiKeys.generate();
        server = startServer(builder -> builder.reportPacing(held)
                .configure(c -> c.withJobs(new JobsConfig(
                                1, Duration.ofSeconds(30), 3, Duration.ofHours(24), Duration.ofMillis(REPORT_MILLIS)))
                        .withBootstrapApiKeys(Stream.concat(c.bootstrapApiKeys().stream(), Stream.of(rangedKey))
                                .toList())));
        api = Api.of(server);
        other = new Api(server.baseUri(), server.otherApiKey());
        ranged = new Api(server.baseUri(), rangedKey);
    }

    @AfterAll
    void stop() {
        try {
            server.close();
        } finally {
            afterServerStopped();
        }
    }

    private Api.Answer report(Api client, String body, String key) {
        return client.post("/v1/reports", body, key);
    }

    private Api.Answer report(Api client) {
        Api.Answer a =
                report(client, "{\"kind\": \"payments_csv\"}", UUID.randomUUID().toString());
        assertThat(a.status()).as(a.raw().body()).isEqualTo(202);
        return a;
    }

    private JsonNode poll(Api client, String location) {
        Api.Answer a = client.get(location);
        assertThat(a.status()).as(a.raw().body()).isEqualTo(200);
        return a.body();
    }

    /** Polls until the job is finished; returns every status seen, in order, then the final job. */
    private JsonNode waitFinished(Api client, String location, Set<String> seen) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(20)).until(() -> {
            last[0] = poll(client, location);
            seen.add(last[0].get("status").asText());
            return Set.of("succeeded", "failed", "canceled")
                    .contains(last[0].get("status").asText());
        });
        return last[0];
    }

    private String payment(Api client, long amount, String description) {
        return createPayment(client, amount, description).get("id").asText();
    }

    /** Creates a payment; its JSON as answered. */
    private JsonNode createPayment(Api client, long amount, String description) {
        String body =
                "{\"amount\": " + amount + ", \"currency\": \"eur\", \"description\": " + Api.quote(description) + "}";
        Api.Answer a = client.post("/v1/payments", body);
        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        return a.body();
    }

    /** A report of the {@code ranged} account over {@code [from, to)}, run to success; its CSV's lines. */
    private List<String> rangeReport(Instant from, Instant to) {
        Api.Answer accepted = report(
                ranged,
                "{\"kind\": \"payments_csv\", \"from\": \"" + from + "\", \"to\": \"" + to + "\"}",
                UUID.randomUUID().toString());
        assertThat(accepted.status()).as(accepted.raw().body()).isEqualTo(202);
        JsonNode done = waitFinished(ranged, accepted.header("Location"), new LinkedHashSet<>());
        assertThat(done.get("status").asText()).isEqualTo("succeeded");
        Api.Answer csv = ranged.get(done.get("result_url").asText());
        assertThat(csv.status()).isEqualTo(200);
        List<String> lines = List.of(csv.raw().body().split("\r\n", -1));
        assertThat(lines.getFirst()).isEqualTo("id,created_at,amount,amount_refunded,currency,status,description");
        assertThat(lines.getLast()).as("the CSV ends with a line break").isEmpty();
        return lines.subList(1, lines.size() - 1);
    }

    @Test
    void theSeedsRunAcceptedThenRunningThenSucceededWithACsvOfTheAccountsPayments() {
        // given payments in this account and one in another
        List<String> mine = new ArrayList<>();
        mine.add(payment(api, 1000, "plain"));
        mine.add(payment(api, 250, "comma, \"quote\""));
        mine.add(payment(api, 99, "=HYPERLINK(\"http://x\")"));
        payment(other, 777, "not mine");

        // when
        Api.Answer accepted = report(api);

        // then: 202 with Location and Retry-After, the job in the body
        String location = accepted.header("Location");
        assertThat(location).isEqualTo("/v1/jobs/" + accepted.body().get("id").asText());
        assertThat(accepted.header("Retry-After")).isEqualTo("1");
        assertThat(accepted.body().get("status").asText()).isIn("queued", "running");
        Set<String> seen = new LinkedHashSet<>();
        seen.add(accepted.body().get("status").asText());
        JsonNode done = waitFinished(api, location, seen);
        assertThat(new ArrayList<>(seen)).contains("running").last().isEqualTo("succeeded");
        assertThat(done.get("progress").asInt()).isEqualTo(100);
        assertThat(done.get("result_url").asText()).isEqualTo(location + "/result");
        assertThat(done.get("finished_at").isTextual()).isTrue();

        Api.Answer csv = api.get(done.get("result_url").asText());
        assertThat(csv.status()).isEqualTo(200);
        assertThat(csv.contentType()).startsWith("text/csv");
        assertThat(csv.header("Content-Disposition"))
                .contains(accepted.body().get("id").asText() + ".csv");
        String[] lines = csv.raw().body().split("\r\n", -1);
        assertThat(lines[0]).isEqualTo("id,created_at,amount,amount_refunded,currency,status,description");
        assertThat(lines).hasSize(mine.size() + 2);
        assertThat(lines[lines.length - 1]).as("the CSV ends with a line break").isEmpty();
        for (int i = 0; i < mine.size(); i++) {
            assertThat(lines[i + 1]).startsWith(mine.get(i) + ",");
        }
        assertThat(lines[1]).endsWith(",1000,0,eur,succeeded,plain");
        assertThat(lines[2]).endsWith(",250,0,eur,succeeded,\"comma, \"\"quote\"\"\"");
        // a formula is defused so that a spreadsheet shows it as text
        assertThat(lines[3]).endsWith(",99,0,eur,succeeded,\"'=HYPERLINK(\"\"http://x\"\")\"");
        assertThat(csv.raw().body()).doesNotContain("not mine");
    }

    @Test
    void aRetriedPostWithTheSameKeyAnswersTheSameJobAndRunsItOnce() {
        String key = UUID.randomUUID().toString();
        Api.Answer first = report(api, "{\"kind\": \"payments_csv\"}", key);
        Api.Answer again = report(api, "{\"kind\": \"payments_csv\"}", key);

        assertThat(first.status()).isEqualTo(202);
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(again.body().get("id")).isEqualTo(first.body().get("id"));
        assertThat(again.header("Location")).isEqualTo(first.header("Location"));
        assertThat(again.header("Retry-After")).isEqualTo("1");
        JsonNode done = waitFinished(api, first.header("Location"), new LinkedHashSet<>());
        assertThat(done.get("status").asText()).isEqualTo("succeeded");
        assertThat(done.get("attempts").asInt()).isEqualTo(1);
        // the same key with another body is another request: refused, nothing created
        assertThat(report(api, "{\"kind\": \"payments_csv\", \"from\": \"2026-01-01T00:00:00Z\"}", key)
                        .status())
                .isEqualTo(422);
    }

    @Test
    void aPostWithoutAnIdempotencyKeyIsRefused() {
        Api.Answer a = report(api, "{\"kind\": \"payments_csv\"}", null);
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.body().get("type").asText()).endsWith("/problems/idempotency-key-missing");
    }

    @Test
    void invalidBodiesNameEveryBadField() {
        Api.Answer a = report(
                api,
                "{\"kind\": \"pdf\", \"from\": \"yesterday\", \"extra\": 1}",
                UUID.randomUUID().toString());
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.body().get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("kind", "from", "extra");

        Api.Answer reversed = report(
                api,
                "{\"kind\": \"payments_csv\", \"from\": \"2026-02-01T00:00:00Z\","
                        + " \"to\": \"2026-01-01T00:00:00Z\"}",
                UUID.randomUUID().toString());
        assertThat(reversed.status()).isEqualTo(400);
        assertThat(reversed.body().get("errors").findValuesAsText("field")).containsExactly("to");
        assertThat(report(api, "{}", UUID.randomUUID().toString()).status()).isEqualTo(400);
    }

    @Test
    void aRangeReportHoldsExactlyThePaymentsCreatedFromItsStartUntilBeforeItsEnd() {
        // given payments until their creation times (milliseconds) take four distinct values
        Map<String, Instant> created = new LinkedHashMap<>();
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (new TreeSet<>(created.values()).size() < 4) {
            assertThat(System.nanoTime() - deadline)
                    .as("four distinct creation times within " + DEADLINE)
                    .isNegative();
            JsonNode p = createPayment(ranged, 100 + created.size(), "range " + created.size());
            created.put(p.get("id").asText(), Instant.parse(p.get("created_at").asText()));
        }
        List<Instant> times = new ArrayList<>(new TreeSet<>(created.values()));
        Instant from = times.get(1);
        Instant to = times.get(3);

        // when
        List<String> rows = rangeReport(from, to);

        // then: from is included, to is not; the payments before from and at to are left out
        List<String> inRange = created.entrySet().stream()
                .filter(e -> !e.getValue().isBefore(from) && e.getValue().isBefore(to))
                .map(Map.Entry::getKey)
                .toList();
        List<String> outOfRange =
                created.keySet().stream().filter(id -> !inRange.contains(id)).toList();
        assertThat(inRange).as("payments at the two middle times").isNotEmpty();
        assertThat(outOfRange).as("payments at the first and last times").isNotEmpty();
        assertThat(rows)
                .extracting(row -> row.substring(0, row.indexOf(',')))
                .as("ids in [" + from + ", " + to + ") of " + created)
                .containsExactlyInAnyOrderElementsOf(inRange);
        List<Instant> rowTimes =
                rows.stream().map(row -> Instant.parse(row.split(",")[1])).toList();
        assertThat(rowTimes).as("oldest first").isSorted();
        for (String row : rows) {
            String id = row.substring(0, row.indexOf(','));
            assertThat(row).startsWith(id + "," + created.get(id) + ",");
        }
    }

    @Test
    void aRangeWithoutPaymentsGivesTheHeaderOnly() {
        Instant made = Instant.parse(createPayment(ranged, 100, "just before the range")
                .get("created_at")
                .asText());

        assertThat(rangeReport(made.plusMillis(1), made.plus(Duration.ofHours(1))))
                .isEmpty();
        assertThat(rangeReport(Instant.parse("2001-01-01T00:00:00Z"), Instant.parse("2001-01-02T00:00:00Z")))
                .isEmpty();
    }

    @Test
    void anEmptyReversedOrMalformedRangeIsAValidationProblemNamingTheField() {
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("\"from\": \"2026-01-01T00:00:00Z\", \"to\": \"2026-01-01T00:00:00Z\"", "to");
        refused.put("\"from\": \"2026-02-01T00:00:00Z\", \"to\": \"2026-01-01T00:00:00Z\"", "to");
        refused.put("\"from\": \"2999-01-01T00:00:00Z\"", "from"); // after the request: to's default
        refused.put("\"from\": \"2026-02-30T00:00:00Z\"", "from");
        refused.put("\"from\": \"2026-01-01\"", "from");
        refused.put("\"from\": \"2026-01-01T00:00:00\"", "from");
        refused.put("\"from\": \"+10000-01-01T00:00:00Z\"", "from");
        refused.put("\"from\": \"-0001-01-01T00:00:00Z\"", "from");
        refused.put("\"to\": \"soon\"", "to");
        refused.put("\"to\": \"\"", "to");
        refused.put("\"to\": 20260101", "to");
        int jobsBefore = api.get("/v1/jobs?limit=100").body().get("data").size();

        for (Map.Entry<String, String> range : refused.entrySet()) {
            Api.Answer a = report(
                    api,
                    "{\"kind\": \"payments_csv\", " + range.getKey() + "}",
                    UUID.randomUUID().toString());

            assertThat(a.status()).as(range.getKey() + ": " + a.raw().body()).isEqualTo(400);
            assertThat(a.contentType()).startsWith("application/problem+json");
            assertThat(a.body().get("type").asText()).endsWith("/problems/validation-failed");
            assertThat(a.body().get("errors").findValuesAsText("field"))
                    .as(range.getKey())
                    .containsExactly(range.getValue());
        }
        assertThat(api.get("/v1/jobs?limit=100").body().get("data").size())
                .as("no job was created")
                .isEqualTo(jobsBefore);
    }

    @Test
    void cancelWhileQueuedCancelsAtOnceAndTwiceGivesTheSameAnswer() {
        // one worker: the first report runs, the second waits behind it
        String running = report(api).header("Location");
        await().atMost(DEADLINE)
                .until(() -> poll(api, running).get("status").asText().equals("running"));
        String queued = report(api).header("Location");
        assertThat(poll(api, queued).get("status").asText()).isEqualTo("queued");

        Api.Answer canceled = api.send("DELETE", queued, null, new byte[0]);
        Api.Answer again = api.send("DELETE", queued, null, new byte[0]);

        assertThat(canceled.status()).isEqualTo(200);
        assertThat(canceled.body().get("status").asText()).isEqualTo("canceled");
        assertThat(canceled.header("Retry-After")).isNull();
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(canceled.body());
        assertThat(api.get(queued + "/result").status()).isEqualTo(409);
        // clean up: the running one is asked to stop
        assertThat(api.send("DELETE", running, null, new byte[0]).status()).isEqualTo(202);
        assertThat(waitFinished(api, running, new LinkedHashSet<>())
                        .get("status")
                        .asText())
                .isEqualTo("canceled");
    }

    @Test
    void cancelWhileRunningStopsAtTheNextCheckpointAndTwiceGivesTheSameAnswer() {
        String location;
        Api.Answer first;
        Api.Answer second;
        try (HeldReports.Hold hold = held.holdNext()) {
            location = report(api).header("Location");
            assertThat(hold.awaitHeld())
                    .as("the held report")
                    .isEqualTo(location.substring(location.lastIndexOf('/') + 1));

            // held between two checkpoints: the job runs on and nothing of it changes meanwhile
            first = api.send("DELETE", location, null, new byte[0]);
            second = api.send("DELETE", location, null, new byte[0]);

            JsonNode meanwhile = poll(api, location);
            assertThat(meanwhile.get("status").asText())
                    .as("no checkpoint reached yet")
                    .isEqualTo("running");
            assertThat(meanwhile.get("cancel_requested").asBoolean()).isTrue();
        }

        assertThat(first.status()).isEqualTo(202);
        assertThat(first.body().get("status").asText()).isEqualTo("running");
        assertThat(first.body().get("cancel_requested").asBoolean()).isTrue();
        assertThat(first.header("Retry-After")).isEqualTo("1");
        assertThat(second.status()).as("twice gives the same answer").isEqualTo(first.status());
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.header("Retry-After")).isEqualTo(first.header("Retry-After"));
        // released: it stops at its next checkpoint, before the stretch it was asked for
        JsonNode done = waitFinished(api, location, new LinkedHashSet<>());
        assertThat(done.get("status").asText()).isEqualTo("canceled");
        assertThat(done.get("result_url").isNull()).isTrue();
        assertThat(done.get("error").isNull()).isTrue();
        Api.Answer afterwards = api.send("DELETE", location, null, new byte[0]);
        assertThat(afterwards.status()).isEqualTo(200);
        assertThat(afterwards.body()).isEqualTo(done);
        Api.Answer result = api.get(location + "/result");
        assertThat(result.status()).isEqualTo(409);
        assertThat(result.header("Retry-After")).isNull();
    }

    @Test
    void cancelAfterSuccessIsAConflictAndChangesNothing() {
        String location = report(api).header("Location");
        waitFinished(api, location, new LinkedHashSet<>());

        Api.Answer a = api.send("DELETE", location, null, new byte[0]);

        assertThat(a.status()).isEqualTo(409);
        assertThat(a.body().get("type").asText()).endsWith("/problems/job-finished");
        assertThat(a.body().get("job").get("status").asText()).isEqualTo("succeeded");
        assertThat(poll(api, location).get("status").asText()).isEqualTo("succeeded");
        assertThat(api.get(location + "/result").status()).isEqualTo(200);
    }

    @Test
    void anUnfinishedJobCarriesRetryAfterAndItsResultIsNotReady() {
        String location = report(api).header("Location");
        Api.Answer job = api.get(location);
        Api.Answer result = api.get(location + "/result");
        assertThat(job.header("Retry-After")).isEqualTo("1");
        assertThat(result.status()).isEqualTo(409);
        assertThat(result.body().get("type").asText()).endsWith("/problems/job-result-not-ready");
        assertThat(result.header("Retry-After")).isEqualTo("1");

        JsonNode done = waitFinished(api, location, new LinkedHashSet<>());
        assertThat(done.get("status").asText()).isEqualTo("succeeded");
        assertThat(api.get(location).header("Retry-After")).isNull();
    }

    @Test
    void anotherAccountsJobIsNotFoundOnEveryRoute() {
        String location = report(api).header("Location");
        try {
            assertThat(other.get(location).status()).isEqualTo(404);
            assertThat(other.get(location + "/result").status()).isEqualTo(404);
            assertThat(other.send("DELETE", location, null, new byte[0]).status())
                    .isEqualTo(404);
            assertThat(other.send("HEAD", location, null, new byte[0]).status()).isEqualTo(404);
            assertThat(api.get("/v1/jobs/job_unknown").status()).isEqualTo(404);
            assertThat(api.get("/v1/jobs/pay_123").status()).isEqualTo(404);
            assertThat(api.get("/v1/jobs/" + "job_" + "x".repeat(500) + "/result")
                            .status())
                    .isEqualTo(404);
            // and the job is untouched by the other account's cancel
            assertThat(poll(api, location).get("cancel_requested").asBoolean()).isFalse();
        } finally {
            waitFinished(api, location, new LinkedHashSet<>());
        }
    }

    @Test
    void aFinishedReportIsAnnouncedAsAnEventAndCounted() {
        String location = report(api).header("Location");
        JsonNode done = waitFinished(api, location, new LinkedHashSet<>());

        JsonNode events = api.get("/v1/events?limit=100").body().get("data");
        List<JsonNode> mine = new ArrayList<>();
        events.forEach(e -> {
            if (e.get("type").asText().equals("report.succeeded")
                    && e.get("data").get("id").asText().equals(done.get("id").asText())) {
                mine.add(e);
            }
        });
        assertThat(mine).hasSize(1);
        assertThat(mine.getFirst().get("data").get("result_url").asText()).isEqualTo(location + "/result");
        String metrics = api.get("/metrics").raw().body();
        assertThat(metrics)
                .contains(
                        "retrysafe_jobs_queued ",
                        "retrysafe_jobs_running ",
                        "retrysafe_jobs_oldest_queued_age_seconds ",
                        "retrysafe_jobs_finished_total{status=\"succeeded\"} ");
        assertThat(metrics).doesNotContain("retrysafe_jobs_finished_total{status=\"succeeded\"} 0\n");
    }

    /**
     * Paces reports as shipped, except the next one after {@link #holdNext()}: that one waits
     * (between two checkpoints, after its rows are written) until its hold is closed.
     */
    static final class HeldReports implements ReportPacing {

        private final AtomicReference<Hold> next = new AtomicReference<>();

        /** Holds the next report to be paced until the returned hold is closed. */
        Hold holdNext() {
            Hold hold = new Hold();
            assertThat(next.compareAndSet(null, hold)).as("one hold at a time").isTrue();
            return hold;
        }

        @Override
        public void pace(JobContext context, Duration leastDuration, long startedNanos) throws InterruptedException {
            Hold hold = next.getAndSet(null);
            if (hold != null) {
                hold.job.set(context.job().id());
                hold.held.countDown();
                if (!hold.released.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("the test never released the held report");
                }
            }
            ReportPacing.SLEEP.pace(context, leastDuration, startedNanos);
        }

        /** One held report; closing it releases the report (or drops the hold if none came). */
        final class Hold implements AutoCloseable {
            private final CountDownLatch held = new CountDownLatch(1);
            private final CountDownLatch released = new CountDownLatch(1);
            private final AtomicReference<String> job = new AtomicReference<>();

            /** Waits until a report is held; its job id. */
            String awaitHeld() {
                try {
                    assertThat(held.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS))
                            .as("a report reached its hold within " + DEADLINE)
                            .isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while waiting for the held report", e);
                }
                return job.get();
            }

            @Override
            public void close() {
                next.compareAndSet(this, null);
                released.countDown();
            }
        }
    }
}

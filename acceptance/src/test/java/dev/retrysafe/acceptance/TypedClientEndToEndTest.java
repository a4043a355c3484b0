package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.client.Sleeper;
import dev.retrysafe.sdk.AcceptedJob;
import dev.retrysafe.sdk.ApiException;
import dev.retrysafe.sdk.CreatedWebhookEndpoint;
import dev.retrysafe.sdk.Delivery;
import dev.retrysafe.sdk.DeliveryAttempt;
import dev.retrysafe.sdk.DeliveryDetail;
import dev.retrysafe.sdk.Event;
import dev.retrysafe.sdk.Job;
import dev.retrysafe.sdk.JobStatus;
import dev.retrysafe.sdk.Page;
import dev.retrysafe.sdk.Payment;
import dev.retrysafe.sdk.RateLimitBudget;
import dev.retrysafe.sdk.RateLimitStatus;
import dev.retrysafe.sdk.Recovery;
import dev.retrysafe.sdk.Refund;
import dev.retrysafe.sdk.RetrysafeClient;
import dev.retrysafe.sdk.WebhookAttemptStats;
import dev.retrysafe.sdk.WebhookEndpoint;
import dev.retrysafe.sdk.WebhookEndpointUpdate;
import dev.retrysafe.server.config.JobsConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.FakeClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The typed client ({@link RetrysafeClient}) against the real server over real HTTP, on H2 and on
 * PostgreSQL: every method of the client, and its answers checked (ids, statuses, amounts, what
 * the server then shows), so that the client and the server keep speaking the same API (issue 7:
 * the typed client is "used by the server's own end-to-end tests"). An unknown id, and another
 * account's, is an {@link ApiException} with status 404 and type {@code /problems/not-found}.
 *
 * <p>Webhooks go to a {@link WebhookReceiver} on 127.0.0.1 that verifies every signature; the
 * server allows loopback targets and plain http ({@code allow_private_targets}) and retries on a
 * schedule compressed to milliseconds. Nothing sleeps to reach a state: deliveries and jobs are
 * awaited by condition with a deadline, and the client's {@link Sleeper} (which
 * {@link RetrysafeClient#awaitJob} waits with) moves a fake clock and then waits, with a deadline,
 * for the server's jobs to finish instead of for the {@code Retry-After}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TypedClientEndToEndTest {

    /** Upper bound of every wait; a correct server needs a small fraction of it. */
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** Five attempts 200 ms apart, no jitter: a delivery to a receiver that is down fails in about a second. */
    private static final List<Duration> FAST_SCHEDULE = List.of(
            Duration.ZERO,
            Duration.ofMillis(200),
            Duration.ofMillis(200),
            Duration.ofMillis(200),
            Duration.ofMillis(200));
    /** Long enough that a running report is still running when the test cancels it (it stops at once then). */
    private static final Duration STRETCHED_REPORT = Duration.ofMinutes(2);

    private static final String UNFINISHED_JOBS = "SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')";
    private static final String NOT_FOUND = "/problems/not-found";

    private static RetrysafeClient client(Deployment d, String apiKey, RetryingHttpClient http) {
        return RetrysafeClient.builder()
                .baseUri(d.server.baseUri())
                .apiKey(apiKey)
                .http(http)
                .build();
    }

    private static RetrysafeClient client(Deployment d, String apiKey) {
        return RetrysafeClient.builder()
                .baseUri(d.server.baseUri())
                .apiKey(apiKey)
                .build();
    }

    /**
     * A sleeper for {@link RetrysafeClient#awaitJob}: it records each wait and moves {@code clock}
     * by it, then waits (with a deadline) until no job of the server is queued or running, so the
     * next look sees the job finished whatever the machine's load.
     */
    private static Sleeper untilJobsFinished(Deployment d, FakeClock clock, List<Duration> waits) {
        return new Sleeper() {
            @Override
            public void sleep(Duration duration) {
                if (!duration.isPositive()) {
                    return;
                }
                waits.add(duration);
                clock.advance(duration);
                await("every job finished")
                        .atMost(DEADLINE)
                        .pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(20))
                        .pollInSameThread()
                        .until(() -> d.count(UNFINISHED_JOBS) == 0);
            }

            @Override
            public CompletableFuture<Void> delay(Duration duration) {
                sleep(duration);
                return CompletableFuture.completedFuture(null);
            }
        };
    }

    private static void assertNotFound(ThrowingCallable call) {
        ApiException e = catchThrowableOfType(ApiException.class, call);
        assertThat(e).as("an ApiException").isNotNull();
        assertThat(e.status()).as(e.getMessage()).isEqualTo(404);
        assertThat(e.problemType()).isEqualTo(NOT_FOUND);
    }

    private static ApiException apiError(int status, String problemType, ThrowingCallable call) {
        ApiException e = catchThrowableOfType(ApiException.class, call);
        assertThat(e).as("an ApiException").isNotNull();
        assertThat(e.status()).as(e.getMessage()).isEqualTo(status);
        assertThat(e.problemType()).isEqualTo(problemType);
        return e;
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Storage.class)
    void paymentsRefundsEventsReportsAndBudgetsThroughEveryTypedMethod(Storage storage) throws Exception {
        FakeClock clock = new FakeClock();
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        try (Deployment d = Deployment.start(
                        storage, b -> b.rateLimits(ServerConfig.defaults().rateLimits()));
                RetryingHttpClient http = RetryingHttpClient.builder()
                        .clock(clock)
                        .sleeper(untilJobsFinished(d, clock, waits))
                        .build();
                RetrysafeClient api = client(d, d.server.apiKey(), http);
                RetrysafeClient other = client(d, d.server.otherApiKey())) {
            // the budgets, which asking does not spend
            RateLimitStatus limits = api.getRateLimits();
            assertThat(limits.enabled()).isTrue();
            assertThat(limits.policies()).extracting(RateLimitBudget::name).containsExactly("key", "account");
            RateLimitBudget perKey = limits.policies().getFirst();
            assertThat(perKey.scope()).isEqualTo("api_key");
            assertThat(perKey.limit()).isEqualTo(100);
            assertThat(perKey.window()).isEqualTo(Duration.ofSeconds(10));
            assertThat(perKey.known()).isTrue();
            assertThat(perKey.remaining()).isBetween(0L, 100L);
            assertThat(perKey.resetAt()).isNotNull();
            assertThat(limits.policies().get(1).window()).isEqualTo(Duration.ofMinutes(1));

            // payments: a generated key, then the caller's key twice: one payment for it
            Payment first = api.createPayment(500, "eur", "order 1");
            assertThat(first.id()).matches("pay_[0-9a-z]{26}");
            assertThat(first)
                    .extracting(
                            Payment::amount,
                            Payment::amountRefunded,
                            Payment::currency,
                            Payment::status,
                            Payment::description)
                    .containsExactly(500L, 0L, "eur", "succeeded", "order 1");
            String key = "order-2-" + UUID.randomUUID();
            Payment second = api.createPayment(700, "eur", null, key);
            assertThat(api.createPayment(700, "eur", null, key)).isEqualTo(second);
            assertThat(d.paymentIdsByKey()).containsEntry(key, second.id()).hasSize(2);
            assertThat(second.description()).isNull();
            assertThat(api.getPayment(first.id())).isEqualTo(first);
            Page<Payment> newest = api.listPayments(1, null);
            assertThat(newest.data()).containsExactly(second);
            assertThat(newest.hasMore()).isTrue();
            Page<Payment> next = api.listPayments(1, newest.last().id());
            assertThat(next.data()).containsExactly(first);
            assertThat(next.hasMore()).isFalse();

            // refunds: part, too much (422), the rest by the caller's key twice
            Refund part = api.createRefund(first.id(), 200L);
            assertThat(part.id()).matches("re_[0-9a-z]{26}");
            assertThat(part)
                    .extracting(Refund::paymentId, Refund::amount, Refund::status)
                    .containsExactly(first.id(), 200L, "succeeded");
            apiError(422, "/problems/refund-exceeds-payment", () -> api.createRefund(first.id(), 400L));
            String refundKey = "refund-" + UUID.randomUUID();
            Refund rest = api.createRefund(first.id(), null, refundKey);
            assertThat(rest.amount()).isEqualTo(300);
            assertThat(api.createRefund(first.id(), null, refundKey)).isEqualTo(rest);
            assertThat(api.getRefund(part.id())).isEqualTo(part);
            assertThat(api.listRefunds(10, null).data()).containsExactly(rest, part);
            assertThat(api.getPayment(first.id()).amountRefunded()).isEqualTo(500);

            // a report, followed to its end: it waits the 202's Retry-After, then sees it succeeded
            AcceptedJob accepted = api.createReport(null, null);
            String jobId = accepted.job().id();
            assertThat(jobId).startsWith("job_");
            assertThat(accepted.job().kind()).isEqualTo("payments_csv");
            assertThat(accepted.job().status()).isIn(JobStatus.QUEUED, JobStatus.RUNNING);
            assertThat(accepted.location()).isEqualTo(d.server.uri("/v1/jobs/" + jobId));
            assertThat(accepted.retryAfter()).isEqualTo(Duration.ofSeconds(1));
            Job done = api.awaitJob(accepted, Duration.ofMinutes(2));
            assertThat(done.status()).isEqualTo(JobStatus.SUCCEEDED);
            assertThat(done.progress()).isEqualTo(100);
            assertThat(done.cancelRequested()).isFalse();
            assertThat(done.resultUrl()).isEqualTo("/v1/jobs/" + jobId + "/result");
            assertThat(done.finishedAt()).isNotNull();
            assertThat(waits).containsExactly(Duration.ofSeconds(1));
            String csv = api.jobResult(jobId, HttpResponse.BodyHandlers.ofString());
            assertThat(csv.lines().skip(1).map(line -> line.substring(0, line.indexOf(','))))
                    .containsExactlyInAnyOrder(first.id(), second.id());
            assertThat(api.getJob(jobId)).isEqualTo(done);
            assertThat(api.listJobs(10, null).data()).containsExactly(done);
            apiError(409, "/problems/job-finished", () -> api.cancelJob(jobId));

            // events: each object as its webhooks would carry it
            Page<Event> refundEvents = api.listEvents("refund.created", 10, null);
            assertThat(refundEvents.data()).extracting(Event::objectId).containsExactly(rest.id(), part.id());
            Event refundEvent = refundEvents.data().getLast();
            assertThat(refundEvent.id()).startsWith("evt_");
            assertThat(refundEvent.data()).containsEntry("amount", 200L).containsEntry("payment_id", first.id());
            assertThat(api.getEvent(refundEvent.id())).isEqualTo(refundEvent);
            assertThat(api.listEvents("payment.succeeded", 10, null).data())
                    .extracting(Event::objectId)
                    .containsExactly(second.id(), first.id());
            assertThat(api.listEvents("report.succeeded", 10, null).data())
                    .extracting(Event::objectId)
                    .containsExactly(jobId);
            assertThat(api.listEvents(null, 100, null).data()).hasSize(5);
            assertThat(api.listEventDeliveries(refundEvent.id()).data())
                    .as("no endpoint, no delivery")
                    .isEmpty();

            // unknown ids, and this account's ids asked for by another account: 404, never the data
            assertNotFound(() -> api.getPayment("pay_00000000000000000000000000"));
            assertNotFound(() -> api.getRefund("re_00000000000000000000000000"));
            assertNotFound(() -> api.getJob("job_00000000000000000000000000"));
            assertNotFound(() -> api.cancelJob("job_00000000000000000000000000"));
            assertNotFound(() -> api.jobResult("job_00000000000000000000000000", HttpResponse.BodyHandlers.ofString()));
            assertNotFound(() -> api.getEvent("evt_00000000000000000000000000"));
            assertNotFound(() -> api.listEventDeliveries("evt_00000000000000000000000000"));
            assertNotFound(() -> other.getPayment(first.id()));
            assertNotFound(() -> other.getRefund(part.id()));
            assertNotFound(() -> other.getJob(jobId));
            assertNotFound(() -> other.jobResult(jobId, HttpResponse.BodyHandlers.ofString()));
            assertNotFound(() -> other.getEvent(refundEvent.id()));
            assertNotFound(() -> other.createRefund(first.id(), 1L));
            assertThat(other.listPayments(100, null).isEmpty()).isTrue();
            assertThat(other.listEvents(null, 100, null).isEmpty()).isTrue();
            assertThat(d.count("SELECT COUNT(*) FROM payments")).isEqualTo(2);
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Storage.class)
    void aQueuedJobIsCanceledAtOnceAndARunningOneAtItsNextCheckpoint(Storage storage) throws Exception {
        FakeClock clock = new FakeClock();
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        // one worker, and reports that would run for minutes: the second report waits behind the first
        try (Deployment d = Deployment.start(
                        storage,
                        b -> b.configure(c -> c.withJobs(new JobsConfig(
                                1, Duration.ofSeconds(30), 3, Duration.ofHours(24), STRETCHED_REPORT))));
                RetryingHttpClient http = RetryingHttpClient.builder()
                        .clock(clock)
                        .sleeper(untilJobsFinished(d, clock, waits))
                        .build();
                RetrysafeClient api = client(d, d.server.apiKey(), http)) {
            AcceptedJob running = api.createReport(null, null);
            String runningId = running.job().id();
            await("the first report running")
                    .atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> api.getJob(runningId).status() == JobStatus.RUNNING);
            AcceptedJob queued = api.createReport(null, null);
            String queuedId = queued.job().id();
            assertThat(api.getJob(queuedId).status()).isEqualTo(JobStatus.QUEUED);

            // a queued job: canceled at once, and the same again is harmless
            Job canceled = api.cancelJob(queuedId);
            assertThat(canceled.status()).isEqualTo(JobStatus.CANCELED);
            assertThat(canceled.finishedAt()).isNotNull();
            assertThat(api.cancelJob(queuedId)).isEqualTo(canceled);
            apiError(
                    409,
                    "/problems/job-result-not-ready",
                    () -> api.jobResult(queuedId, HttpResponse.BodyHandlers.ofString()));

            // a running job: asked to stop, and followed until it did
            Job stopping = api.cancelJob(runningId);
            assertThat(stopping.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(stopping.cancelRequested()).isTrue();
            Job stopped = api.awaitJob(running, DEADLINE);
            assertThat(stopped.status()).isEqualTo(JobStatus.CANCELED);
            assertThat(stopped.resultUrl()).isNull();
            assertThat(stopped.progress()).isLessThan(100);
            assertThat(waits).containsExactly(Duration.ofSeconds(1));
            assertThat(api.getJob(runningId)).isEqualTo(stopped);

            // both listed, newest first, page by page
            Page<Job> newest = api.listJobs(1, null);
            assertThat(newest.data()).extracting(Job::id).containsExactly(queuedId);
            assertThat(newest.hasMore()).isTrue();
            assertThat(api.listJobs(1, queuedId).data()).extracting(Job::id).containsExactly(runningId);
            assertThat(api.listEvents(null, 10, null).isEmpty())
                    .as("a canceled report emits no event")
                    .isTrue();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Storage.class)
    void webhookEndpointsAndTheirDeliveriesThroughEveryTypedMethod(Storage storage) throws Exception {
        try (WebhookReceiver receiver = WebhookReceiver.start();
                Deployment d = Deployment.start(storage, b -> b.loopbackWebhooks(FAST_SCHEDULE));
                RetrysafeClient api = client(d, d.server.apiKey());
                RetrysafeClient other = client(d, d.server.otherApiKey())) {
            // register, read, list
            CreatedWebhookEndpoint created =
                    api.createWebhookEndpoint(receiver.url().toString(), List.of("payment.succeeded"), "shop");
            WebhookEndpoint endpoint = created.endpoint();
            String id = endpoint.id();
            assertThat(id).startsWith("we_");
            assertThat(endpoint)
                    .extracting(
                            WebhookEndpoint::url,
                            WebhookEndpoint::description,
                            WebhookEndpoint::eventTypes,
                            WebhookEndpoint::enabled,
                            WebhookEndpoint::disabledReason,
                            WebhookEndpoint::rateLimit)
                    .containsExactly(receiver.url().toString(), "shop", List.of("payment.succeeded"), true, null, null);
            assertThat(created.secret()).startsWith("whsec_");
            receiver.trust(created.secret());
            assertThat(api.getWebhookEndpoint(id)).isEqualTo(endpoint);
            assertThat(api.listWebhookEndpoints(10, null).data()).containsExactly(endpoint);
            assertThat(api.getWebhookEndpointSecret(id)).isEqualTo(created.secret());

            // change only what is sent
            WebhookEndpoint changed = api.updateWebhookEndpoint(
                    id,
                    WebhookEndpointUpdate.builder()
                            .eventTypes(List.of("payment.succeeded", "refund.created"))
                            .description("shop v2")
                            .rateLimit(50)
                            .build());
            assertThat(changed.eventTypes()).containsExactlyInAnyOrder("payment.succeeded", "refund.created");
            assertThat(changed)
                    .extracting(
                            WebhookEndpoint::url,
                            WebhookEndpoint::description,
                            WebhookEndpoint::rateLimit,
                            WebhookEndpoint::enabled)
                    .containsExactly(endpoint.url(), "shop v2", 50, true);
            assertThat(api.getWebhookEndpoint(id)).isEqualTo(changed);

            // a payment's event reaches the receiver, signed; the delivery shows its one attempt
            Payment payment = api.createPayment(500, "eur", "order 1");
            Delivery paid = awaitOneFinishedDelivery(api, id, "payment.succeeded");
            assertThat(paid.status()).isEqualTo("succeeded");
            DeliveryDetail paidDetail = api.getDelivery(paid.id());
            assertThat(paidDetail.delivery()).isEqualTo(paid);
            assertThat(paidDetail.attempts()).singleElement().satisfies(a -> {
                assertThat(a.id()).startsWith("att_");
                assertThat(a.outcome()).isEqualTo("success");
                assertThat(a.statusCode()).isEqualTo(200);
            });
            assertThat(paidDetail.payload())
                    .isInstanceOfSatisfying(
                            Map.class,
                            event -> assertThat(((Map<?, ?>) event.get("data")).get("id"))
                                    .isEqualTo(payment.id()));
            Event event = api.getEvent(paid.eventId());
            assertThat(event.type()).isEqualTo("payment.succeeded");
            assertThat(event.objectId()).isEqualTo(payment.id());
            assertThat(api.listEvents("payment.succeeded", 10, null).data()).containsExactly(event);
            assertThat(api.listEventDeliveries(event.id()).data())
                    .extracting(Delivery::id)
                    .containsExactly(paid.id());
            assertThat(receiver.handled()).hasSize(1);

            // sent again on request: the same webhook-id, which the receiver recognises
            Delivery again = api.retryDelivery(paid.id());
            assertThat(again.id()).isEqualTo(paid.id());
            assertThat(again.status()).isIn("pending", "delivering");
            await("the replay")
                    .atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        Delivery now = api.getDelivery(paid.id()).delivery();
                        return now.attemptCount() == 2 && now.status().equals("succeeded");
                    });
            assertThat(receiver.duplicates()).isEqualTo(1);

            // a new secret; the receiver trusts only it from now on
            CreatedWebhookEndpoint rotated = api.rotateWebhookEndpointSecret(id);
            assertThat(rotated.secret()).startsWith("whsec_").isNotEqualTo(created.secret());
            assertThat(rotated.endpoint().previousSecretExpiresAt()).isNotNull();
            assertThat(api.getWebhookEndpointSecret(id)).isEqualTo(rotated.secret());
            receiver.trust(rotated.secret());

            // the receiver is down: the refund's delivery fails every attempt; recovered once it is back
            receiver.down(true);
            Refund refund = api.createRefund(payment.id(), 200L);
            Delivery failed = awaitOneFinishedDelivery(api, id, "refund.created");
            assertThat(failed.status()).isEqualTo("failed");
            assertThat(failed.attemptCount()).isEqualTo(FAST_SCHEDULE.size());
            assertThat(api.getDelivery(failed.id()).attempts())
                    .extracting(DeliveryAttempt::outcome, DeliveryAttempt::statusCode)
                    .containsOnly(tuple("http_error", 500));
            receiver.down(false);
            Recovery recovery = api.recoverWebhookEndpoint(id, failed.createdAt());
            assertThat(recovery.endpointId()).isEqualTo(id);
            assertThat(recovery.recovered()).isEqualTo(1);
            await("the recovered delivery")
                    .atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() ->
                            api.getDelivery(failed.id()).delivery().status().equals("succeeded"));
            assertThat(receiver.handled()).hasSize(2).last().asString().contains(refund.id());
            assertThat(receiver.rejected())
                    .as("every delivery verified, before and after the rotation")
                    .isZero();
            assertThat(api.listWebhookEndpointDeliveries(id, 10, null).data())
                    .extracting(Delivery::id)
                    .containsExactly(failed.id(), paid.id());
            Page<Delivery> firstPage = api.listWebhookEndpointDeliveries(id, 1, null);
            assertThat(firstPage.hasMore()).isTrue();
            assertThat(api.listWebhookEndpointDeliveries(id, 1, firstPage.last().id())
                            .data())
                    .extracting(Delivery::id)
                    .containsExactly(paid.id());

            // every attempt counted by outcome, as the deliveries list them
            Map<String, Long> attempts = new TreeMap<>();
            for (String delivery : List.of(paid.id(), failed.id())) {
                api.getDelivery(delivery).attempts().forEach(a -> attempts.merge(a.outcome(), 1L, Long::sum));
            }
            assertThat(attempts).isEqualTo(Map.of("success", 3L, "http_error", (long) FAST_SCHEDULE.size()));
            WebhookAttemptStats stats = api.getWebhookAttemptStats(2);
            assertThat(stats.buckets()).hasSize(2);
            assertThat(stats.bucketLength()).isEqualTo(Duration.ofHours(1));
            assertThat(nonZero(stats.totals())).isEqualTo(attempts);

            // disabled by a change: no retry then; enabled again
            WebhookEndpoint disabled = api.updateWebhookEndpoint(
                    id, WebhookEndpointUpdate.builder().enabled(false).build());
            assertThat(disabled)
                    .extracting(WebhookEndpoint::enabled, WebhookEndpoint::disabledReason)
                    .containsExactly(false, "manual");
            ApiException refused =
                    apiError(409, "/problems/delivery-not-retryable", () -> api.retryDelivery(paid.id()));
            assertThat(refused.problem().members()).containsEntry("reason", "endpoint_disabled");
            WebhookEndpoint enabled = api.enableWebhookEndpoint(id);
            assertThat(enabled)
                    .extracting(WebhookEndpoint::enabled, WebhookEndpoint::disabledReason)
                    .containsExactly(true, null);

            // another account sees none of it
            assertNotFound(() -> other.getWebhookEndpoint(id));
            assertNotFound(() -> other.getWebhookEndpointSecret(id));
            assertNotFound(() -> other.updateWebhookEndpoint(
                    id, WebhookEndpointUpdate.builder().enabled(false).build()));
            assertNotFound(() -> other.rotateWebhookEndpointSecret(id));
            assertNotFound(() -> other.enableWebhookEndpoint(id));
            assertNotFound(() -> other.recoverWebhookEndpoint(id, failed.createdAt()));
            assertNotFound(() -> other.listWebhookEndpointDeliveries(id, 10, null));
            assertNotFound(() -> other.getDelivery(paid.id()));
            assertNotFound(() -> other.retryDelivery(paid.id()));
            assertNotFound(() -> other.listEventDeliveries(event.id()));
            assertNotFound(() -> other.deleteWebhookEndpoint(id));
            assertThat(other.listWebhookEndpoints(10, null).isEmpty()).isTrue();
            assertThat(other.getWebhookAttemptStats(2).totals().values()).allMatch(n -> n == 0);
            assertThat(api.getWebhookEndpoint(id).enabled())
                    .as("untouched by the other account")
                    .isTrue();

            // deleted with its deliveries
            api.deleteWebhookEndpoint(id);
            assertNotFound(() -> api.getWebhookEndpoint(id));
            assertNotFound(() -> api.getDelivery(paid.id()));
            assertNotFound(() -> api.deleteWebhookEndpoint(id));
            assertThat(api.listWebhookEndpoints(10, null).isEmpty()).isTrue();
        }
    }

    /** The endpoint's one delivery of {@code eventType}, once it has succeeded or failed. */
    private static Delivery awaitOneFinishedDelivery(RetrysafeClient api, String endpointId, String eventType) {
        Predicate<Delivery> ofType = delivery -> delivery.eventType().equals(eventType);
        return await(eventType + " delivered or failed")
                .atMost(DEADLINE)
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> {
                            List<Delivery> found =
                                    api.listWebhookEndpointDeliveries(endpointId, 10, null).data().stream()
                                            .filter(ofType)
                                            .toList();
                            assertThat(found).hasSizeLessThanOrEqualTo(1);
                            return found.isEmpty() || !found.getFirst().finished() ? null : found.getFirst();
                        },
                        delivery -> delivery != null);
    }

    private static Map<String, Long> nonZero(Map<String, Long> counts) {
        Map<String, Long> out = new TreeMap<>(counts);
        out.values().removeIf(n -> n == 0);
        return out;
    }
}

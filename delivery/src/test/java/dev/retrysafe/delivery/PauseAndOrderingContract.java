package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Pausing and resuming an endpoint, and per-key ordering (docs/webhooks.md), on every database of
 * the delivery contract. Apart from {@link DeliveryContract} so that each can be read (and
 * changed) on its own.
 */
abstract class PauseAndOrderingContract extends DeliveryContract {

    // --- pause and resume --------------------------------------------------------------------

    @Test
    void hundredEventsWhilePausedAreNotAttemptedAndResumeSendsEachOnceInCommitOrder() {
        String paused = endpoint(ACCOUNT, URL_A, "*");
        String open = endpoint(ACCOUNT, URL_B, "*");
        Dispatcher dispatcher = track(Dispatcher.builder(dataSource, sender)
                .clock(clock)
                .workers(1)); // one attempt at a time: arrivals in claim order

        WebhookEndpoint afterPause = endpoints.pause(ACCOUNT, paused).orElseThrow();
        assertThat(afterPause.paused()).isTrue();
        assertThat(afterPause.pausedAt()).isEqualTo(clock.instant());
        assertThat(WebhookEndpointRepresentation.of(afterPause))
                .containsEntry("status", "paused")
                .containsEntry("paused_at", clock.instant().toString());
        List<String> committed = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            clock.advance(Duration.ofMillis(1));
            committed.add(deliveryOf(appendNow("payment.succeeded", null), paused));
        }
        while (dispatcher.dispatchDue() > 0) {
            // the open endpoint's 100 go while the paused one holds its own
        }
        clock.advance(Duration.ofDays(10));
        assertThat(dispatcher.dispatchDue())
                .as("nothing due while paused, however long")
                .isZero();
        assertThat(sender.sentTo(URL_A)).isEmpty();
        assertThat(sender.sentTo(URL_B)).hasSize(100);
        assertThat(deliveriesOf(paused)).hasSize(100).allSatisfy(d -> {
            assertThat(d.status()).isEqualTo(DeliveryStatus.PENDING);
            assertThat(d.attempts()).isZero();
        });
        assertThat(dispatcher.queueDepth().due())
                .as("held deliveries are not due")
                .isZero();
        assertThat(endpoints.get(ACCOUNT, open).orElseThrow().paused()).isFalse();

        WebhookEndpoint resumed = endpoints.resume(ACCOUNT, paused).orElseThrow();
        assertThat(resumed.paused()).isFalse();
        assertThat(WebhookEndpointRepresentation.of(resumed)).containsEntry("status", "enabled");
        while (dispatcher.dispatchDue() > 0) {
            // one by one
        }

        assertThat(sender.sentTo(URL_A)).extracting(FakeSender.Sent::deliveryId).containsExactlyElementsOf(committed);
        assertThat(deliveriesOf(paused)).allSatisfy(d -> assertThat(d.status()).isEqualTo(DeliveryStatus.SUCCEEDED));
    }

    @Test
    void pauseAndResumeAreIdempotentAndUnknownEndpointsAreEmpty() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        Instant first = clock.instant();
        endpoints.pause(ACCOUNT, id);
        clock.advance(Duration.ofMinutes(1));
        assertThat(endpoints.pause(ACCOUNT, id).orElseThrow().pausedAt())
                .as("pausing again keeps the first pause")
                .isEqualTo(first);
        assertThat(endpoints.resume(ACCOUNT, id).orElseThrow().paused()).isFalse();
        assertThat(endpoints.resume(ACCOUNT, id).orElseThrow().paused()).isFalse();
        assertThat(endpoints.pause(ACCOUNT, "we_missing")).isEmpty();
        assertThat(endpoints.resume(ACCOUNT, "we_missing")).isEmpty();
        assertThat(endpoints.pause(OTHER_ACCOUNT, id)).as("another account's").isEmpty();
    }

    @Test
    void pauseLongerThanDisableAfterDoesNotDisableAndTheStreakGoesOnFromWhereItStood() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(500));
        Dispatcher dispatcher = track(Dispatcher.builder(dataSource, sender)
                .clock(clock)
                .schedule(RetrySchedule.builder()
                        .delays(
                                Duration.ZERO,
                                Duration.ofMinutes(20),
                                Duration.ofMinutes(20),
                                Duration.ofMinutes(20),
                                Duration.ofMinutes(20))
                        .jitter(0)
                        .build())
                .disableAfter(Duration.ofHours(1)));
        Instant firstFailure = clock.instant();
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        clock.advance(Duration.ofMinutes(30)); // failing for 30 minutes when paused

        endpoints.pause(ACCOUNT, id);
        clock.advance(Duration.ofDays(2));
        assertThat(dispatcher.dispatchDue()).isZero();
        endpoints.resume(ACCOUNT, id);

        WebhookEndpoint resumed = endpoints.get(ACCOUNT, id).orElseThrow();
        assertThat(resumed.failingSince())
                .as("the streak moved by the pause's length")
                .isEqualTo(firstFailure.plus(Duration.ofDays(2)));
        assertThat(dispatcher.dispatchDue()).as("the held retry goes at once").isEqualTo(1);
        assertThat(endpoints.get(ACCOUNT, id).orElseThrow().enabled())
                .as("30 minutes of failing, not two days")
                .isTrue();
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.PENDING);

        clock.advance(Duration.ofMinutes(31));
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        assertThat(endpoints.get(ACCOUNT, id).orElseThrow().disabledReason())
                .as("61 minutes of failing while not paused")
                .isEqualTo(DisabledReason.FAILING);
    }

    @Test
    void attemptUnderWayWhenPausedFinishesButNeitherStartsAStreakNorRetriesBeforeResume() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> {
            endpoints.pause(ACCOUNT, id); // paused while this attempt is in flight
            return FakeSender.status(500);
        });
        Dispatcher dispatcher = dispatcher(NO_JITTER);

        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.PENDING);
        assertThat(endpoints.get(ACCOUNT, id).orElseThrow().failingSince())
                .as("no streak starts while paused")
                .isNull();
        clock.advance(Duration.ofDays(6));
        assertThat(dispatcher.dispatchDue())
                .as("its retry waits for the resume")
                .isZero();
        assertThat(endpoints.get(ACCOUNT, id).orElseThrow().enabled()).isTrue();

        sender.respond((url, d) -> FakeSender.ok());
        endpoints.resume(ACCOUNT, id);
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.SUCCEEDED);
    }

    @Test
    void anAttemptThatSucceedsWhilePausedLeavesTheEndpointRowAlone() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(500));
        Dispatcher dispatcher = dispatcher(NO_JITTER);
        dispatcher.dispatchDue();
        Instant streak = endpoints.get(ACCOUNT, id).orElseThrow().failingSince();
        assertThat(streak).isNotNull();
        sender.respond((url, d) -> {
            endpoints.pause(ACCOUNT, id); // paused while this attempt is in flight
            return FakeSender.ok();
        });
        clock.advance(Duration.ofSeconds(5));

        assertThat(dispatcher.dispatchDue()).isEqualTo(1);

        // the dispatcher never locks a paused endpoint's row (docs/concurrency.md): the streak stays
        assertThat(endpoints.get(ACCOUNT, id).orElseThrow().failingSince()).isEqualTo(streak);
        assertThat(deliveriesOf(id).getFirst().status()).isEqualTo(DeliveryStatus.SUCCEEDED);
    }

    @Test
    void recoverWhilePausedHoldsTheRecoveredUntilResume() {
        String id = endpoint(ACCOUNT, URL_A, "*");
        String delivery = deliverOneEvent(ACCOUNT);
        sender.respond((url, d) -> FakeSender.status(500));
        Dispatcher dispatcher = dispatcher(
                RetrySchedule.builder().delays(Duration.ZERO).jitter(0).build());
        dispatcher.dispatchDue();
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.FAILED);
        endpoints.pause(ACCOUNT, id);

        assertThat(endpoints.recover(ACCOUNT, id, Instant.EPOCH)).hasValue(1);
        assertThat(dispatcher.dispatchDue()).isZero();
        assertThat(dispatcher.queueDepth().due()).isZero();

        sender.respond((url, d) -> FakeSender.ok());
        endpoints.resume(ACCOUNT, id);
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        assertThat(status(delivery)).isEqualTo(DeliveryStatus.SUCCEEDED);
    }

    // --- ordering keys -----------------------------------------------------------------------

    @Test
    void orderedEndpointGetsOneDeliveryOfAKeyAtATimeInCommitOrderAndKeysInParallel() {
        String ordered = orderedEndpoint(URL_A);
        String plain = endpoint(ACCOUNT, URL_B, "*");
        String a1 = appendNow("payment.created", "pay_a");
        String b1 = appendNow("payment.created", "pay_b");
        String a2 = appendNow("payment.succeeded", "pay_a");
        String a3 = appendNow("refund.created", "pay_a");
        String b2 = appendNow("payment.succeeded", "pay_b");
        String none = appendNow("payout.paid", null);
        Dispatcher dispatcher = dispatcher();

        assertThat(dispatcher.dispatchDue()).isEqualTo(3 + 6); // heads a1, b1, the keyless one; all six to plain
        assertThat(eventsSentTo(URL_A)).containsExactlyInAnyOrder(a1, b1, none);
        assertThat(eventsSentTo(URL_B)).containsExactlyInAnyOrder(a1, b1, a2, a3, b2, none);
        assertThat(dispatcher.dispatchDue()).isEqualTo(2);
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        assertThat(dispatcher.dispatchDue()).isZero();

        List<String> toOrdered = eventsSentTo(URL_A);
        assertThat(toOrdered.subList(3, 6)).containsExactlyInAnyOrder(a2, b2, a3);
        assertThat(toOrdered.indexOf(a3)).isGreaterThan(toOrdered.indexOf(a2));
        assertThat(deliveriesOf(ordered)).allSatisfy(d -> assertThat(d.status()).isEqualTo(DeliveryStatus.SUCCEEDED));
        assertThat(deliveriesOf(plain)).hasSize(6);
    }

    @Test
    void theNextOfAKeyWaitsThroughRetriesAndGoesWhenTheHeadIsGivenUp() {
        orderedEndpoint(URL_A);
        String first = appendNow("payment.created", "pay_a");
        String second = appendNow("payment.succeeded", "pay_a");
        sender.respond((url, d) -> FakeSender.status(500));
        Dispatcher dispatcher = dispatcher(RetrySchedule.builder()
                .delays(Duration.ZERO, Duration.ofMinutes(1))
                .jitter(0)
                .build());

        assertThat(dispatcher.dispatchDue()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(30));
        assertThat(dispatcher.dispatchDue())
                .as("the second waits for the first's retry")
                .isZero();
        clock.advance(Duration.ofSeconds(30));
        assertThat(dispatcher.dispatchDue())
                .as("the first, again, given up now")
                .isEqualTo(1);
        sender.respond((url, d) -> FakeSender.ok());
        assertThat(dispatcher.dispatchDue()).as("given up: the second goes").isEqualTo(1);

        assertThat(eventsSentTo(URL_A)).containsExactly(first, first, second);
    }

    @Test
    void aDeadInstancesHeadIsStillTheHeadAfterItsLeaseRunsOut() throws Exception {
        orderedEndpoint(URL_A);
        String first = appendNow("payment.created", "pay_a");
        String second = appendNow("payment.succeeded", "pay_a");
        long leaseEnd = clock.instant().plus(Dispatcher.DEFAULT_LEASE).toEpochMilli();
        execute("UPDATE deliveries SET status = 'delivering', lease_owner = 'dead', lease_token = 'x', "
                + "lease_expires_at = " + leaseEnd + ", next_attempt_at = " + leaseEnd
                + " WHERE next_attempt_at IS NOT NULL");
        Dispatcher survivor = dispatcher();

        assertThat(survivor.dispatchDue())
                .as("the second waits for the dead instance's head")
                .isZero();
        clock.advance(Dispatcher.DEFAULT_LEASE.plusMillis(1));
        assertThat(survivor.dispatchDue()).isEqualTo(1);
        assertThat(survivor.dispatchDue()).isEqualTo(1);

        assertThat(eventsSentTo(URL_A)).containsExactly(first, second);
    }

    @Test
    void pausedOrderedEndpointResumesWithTheHeadOfEachKeyOnly() {
        String id = orderedEndpoint(URL_A);
        endpoints.pause(ACCOUNT, id);
        String a1 = appendNow("payment.created", "pay_a");
        String a2 = appendNow("payment.succeeded", "pay_a");
        String b1 = appendNow("payment.created", "pay_b");
        Dispatcher dispatcher = dispatcher();
        assertThat(dispatcher.dispatchDue()).isZero();

        endpoints.resume(ACCOUNT, id);
        assertThat(dispatcher.dispatchDue()).isEqualTo(2);
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);

        assertThat(eventsSentTo(URL_A)).containsExactlyInAnyOrder(a1, b1, a2);
        assertThat(eventsSentTo(URL_A).getLast()).isEqualTo(a2);
    }

    @Test
    void orderingIsSetOnCreateAndPatchAndTurningItOffSendsWhatWaited() {
        String id = orderedEndpoint(URL_A);
        assertThat(endpoints.get(ACCOUNT, id).orElseThrow().ordered()).isTrue();
        assertThat(WebhookEndpointRepresentation.of(endpoints.get(ACCOUNT, id).orElseThrow()))
                .containsEntry("ordered", true);
        appendNow("payment.created", "pay_a");
        appendNow("payment.succeeded", "pay_a");
        appendNow("refund.created", "pay_a");
        Dispatcher dispatcher = dispatcher();
        sender.respond((url, d) -> FakeSender.status(500));
        assertThat(dispatcher.dispatchDue()).isEqualTo(1);

        WebhookEndpoint off = endpoints
                .update(ACCOUNT, id, EndpointUpdate.builder().ordered(false).build())
                .orElseThrow();
        assertThat(off.ordered()).isFalse();
        sender.respond((url, d) -> FakeSender.ok());
        assertThat(dispatcher.dispatchDue())
                .as("the two that waited go at once")
                .isEqualTo(2);
        assertThat(endpoints
                        .update(
                                ACCOUNT,
                                id,
                                EndpointUpdate.builder().ordered(true).build())
                        .orElseThrow()
                        .ordered())
                .isTrue();
    }

    @Test
    void manualRetryOfAGivenUpDeliverySendsItOutsideTheOrderAndKeepsTheKeyMoving() {
        orderedEndpoint(URL_A);
        String first = appendNow("payment.created", "pay_a");
        sender.respond((url, d) -> FakeSender.status(500));
        Dispatcher dispatcher = dispatcher(
                RetrySchedule.builder().delays(Duration.ZERO).jitter(0).build());
        assertThat(dispatcher.dispatchDue()).isEqualTo(1); // given up at once
        String second = appendNow("payment.succeeded", "pay_a");
        String third = appendNow("refund.created", "pay_a");
        sender.respond((url, d) -> FakeSender.ok());

        String firstDelivery = deliveryOf(first, orderedEndpointId());
        assertThat(endpoints.retry(ACCOUNT, firstDelivery)).isInstanceOf(RetryOutcome.Retried.class);
        while (dispatcher.dispatchDue() > 0) {
            // until nothing is left
        }

        List<String> sent = eventsSentTo(URL_A);
        assertThat(sent).containsExactlyInAnyOrder(first, first, second, third);
        assertThat(sent.indexOf(third)).isGreaterThan(sent.indexOf(second));
    }

    // --- helpers -----------------------------------------------------------------------------

    private @Nullable String orderedId;

    String orderedEndpoint(URI url) {
        orderedId = endpoints
                .create(ACCOUNT, new NewEndpoint(url, Set.of("*"), "ordered", null, true))
                .endpoint()
                .id();
        return orderedId;
    }

    String orderedEndpointId() {
        return java.util.Objects.requireNonNull(orderedId);
    }

    /** Appends an event with {@code key} now, in a transaction of its own; returns its id. */
    String appendNow(String type, @Nullable String key) {
        String id = "evt_" + UUID.randomUUID().toString().replace("-", "");
        OutboxEvent event = new OutboxEvent(
                        id, ACCOUNT, type, clock.instant(), ("{\"id\":\"" + id + "\"}").getBytes(UTF_8))
                .withOrderingKey(key);
        inTransaction(tx -> outbox.appendCounting(tx, event));
        return id;
    }

    String deliveryOf(String eventId, String endpointId) {
        return inTransaction(tx -> {
            try (PreparedStatement s =
                    tx.prepareStatement("SELECT id FROM deliveries WHERE event_id = ? AND endpoint_id = ?")) {
                s.setString(1, eventId);
                s.setString(2, endpointId);
                try (ResultSet r = s.executeQuery()) {
                    return r.next() ? r.getString(1) : "none";
                }
            }
        });
    }

    /** The events of the attempts to {@code url}, in the order they were sent. */
    List<String> eventsSentTo(URI url) {
        List<String> out = new ArrayList<>();
        for (FakeSender.Sent sent : sender.sentTo(url)) {
            String body = new String(sent.body(), UTF_8);
            out.add(body.substring(body.indexOf("evt_"), body.indexOf('"', body.indexOf("evt_"))));
        }
        return out;
    }
}

package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.DeliveryChecks;
import dev.retrysafe.delivery.internal.EndpointStore;
import dev.retrysafe.webhooks.WebhookSecret;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import javax.sql.DataSource;

/**
 * Webhook endpoints and their delivery log, in PostgreSQL (15+) or H2 (2.x,
 * {@code MODE=PostgreSQL}) with the tables of {@link DeliverySchema#schemaSql()}: the operations
 * behind {@code /v1/webhook_endpoints} and {@code /v1/deliveries}. Every method takes the
 * caller's account and sees only that account's rows, so another account's id looks exactly like
 * an id that does not exist (answer {@code 404}). URLs must have passed the SSRF guard before
 * they are given here. Secrets are generated here and never logged. This class is threadsafe.
 *
 * <pre>{@code
 * WebhookEndpoints endpoints = WebhookEndpoints.builder(dataSource).clock(clock).build();
 * EndpointWithSecret created = endpoints.create("acct_1",
 *         new NewEndpoint(URI.create("https://example.com/hooks"), Set.of("payment.succeeded"), ""));
 * }</pre>
 */
public final class WebhookEndpoints {

    /** How long the old secret keeps signing after a rotation unless configured otherwise. */
    public static final Duration DEFAULT_ROTATION_GRACE = Duration.ofHours(24);
    /** Longest rotation grace accepted. */
    public static final Duration MAX_ROTATION_GRACE = Duration.ofDays(7);
    /** Highest per-endpoint rate limit accepted, attempts per second. */
    public static final int MAX_RATE_LIMIT = DeliveryChecks.MAX_RATE_LIMIT;

    /** Most hours {@link #attemptsPerHour} counts at once (31 days). */
    public static final int MAX_STATS_HOURS = 31 * 24;

    private final EndpointStore store;

    private WebhookEndpoints(Builder builder) {
        this.store = new EndpointStore(builder.dataSource, builder.clock, builder.rotationGrace);
    }

    /** A builder of a store over {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** Creates an enabled endpoint with a new random secret, answered once here (and by {@link #secret}). */
    public EndpointWithSecret create(String accountId, NewEndpoint request) {
        return store.create(accountId, request);
    }

    /** The endpoint, if the account has it. */
    public Optional<WebhookEndpoint> get(String accountId, String endpointId) {
        return store.get(accountId, endpointId);
    }

    /** A page of the account's endpoints, newest first. */
    public Page<WebhookEndpoint> list(String accountId, PageRequest page) {
        return store.list(accountId, page);
    }

    /**
     * Applies a partial change; empty if the account has no such endpoint. Disabling fails the
     * deliveries waiting for it ({@link #recover} sends them again); enabling works as {@link #enable}.
     */
    public Optional<WebhookEndpoint> update(String accountId, String endpointId, EndpointUpdate update) {
        return store.update(accountId, endpointId, update);
    }

    /** Deletes the endpoint with its deliveries and their attempts; false if there was none. */
    public boolean delete(String accountId, String endpointId) {
        return store.delete(accountId, endpointId);
    }

    /** The endpoint's current secret ({@code GET .../secret}). */
    public Optional<WebhookSecret> secret(String accountId, String endpointId) {
        return store.secret(accountId, endpointId);
    }

    /**
     * Replaces the secret with a new random one; the old one keeps signing (next to the new one)
     * for the configured grace period. Rotating again during a grace period drops the oldest
     * secret at once: only the two newest ever sign.
     */
    public Optional<EndpointWithSecret> rotateSecret(String accountId, String endpointId) {
        return store.rotateSecret(accountId, endpointId);
    }

    /** As {@link #rotateSecret(String, String)} with a grace period of its own (0 to 7 days). */
    public Optional<EndpointWithSecret> rotateSecret(String accountId, String endpointId, Duration grace) {
        return store.rotateSecret(accountId, endpointId, checkGrace(grace));
    }

    /**
     * Enables the endpoint and forgets its failing streak and any slow-down. Deliveries failed
     * while it was disabled stay failed; {@link #recover} sends them again.
     */
    public Optional<WebhookEndpoint> enable(String accountId, String endpointId) {
        return store.enable(accountId, endpointId);
    }

    /**
     * Pauses the endpoint: its pending deliveries, and those its events make from now on, are held
     * until {@link #resume}: none is attempted, none fails, and its failing streak does not run
     * (the time paused does not count toward disabling it). Attempts under way finish; a failed
     * one's retry waits for the resume too. Pausing a paused endpoint changes nothing. Empty if
     * the account has no such endpoint.
     */
    public Optional<WebhookEndpoint> pause(String accountId, String endpointId) {
        return store.pause(accountId, endpointId);
    }

    /**
     * Resumes a paused endpoint: what waited is due at once, oldest first (of an ordered endpoint,
     * the first of each key; the rest follow one by one), and a failing streak that ran when it
     * paused goes on from where it stood. Resuming an endpoint that is not paused changes nothing.
     * Empty if the account has no such endpoint.
     */
    public Optional<WebhookEndpoint> resume(String accountId, String endpointId) {
        return store.resume(accountId, endpointId);
    }

    /** A page of the endpoint's deliveries, newest first; empty if the account has no such endpoint. */
    public Optional<Page<Delivery>> deliveries(String accountId, String endpointId, PageRequest page) {
        return store.deliveries(accountId, endpointId, page);
    }

    /** A page of the deliveries of an event of the account (one per endpoint it went to), newest first. */
    public Page<Delivery> eventDeliveries(String accountId, String eventId, PageRequest page) {
        return store.eventDeliveries(accountId, eventId, page);
    }

    /**
     * How the attempts to each of the account's endpoints in {@code endpointIds} went since
     * {@code since}: one entry per given id, in the given order ({@link EndpointHealth#NONE} for
     * an endpoint without attempts, or one the account does not have). One query for them all.
     */
    public Map<String, EndpointHealth> health(String accountId, Collection<String> endpointIds, Instant since) {
        Objects.requireNonNull(since, "since");
        return store.health(accountId, List.copyOf(new LinkedHashSet<>(endpointIds)), since);
    }

    /**
     * The account's attempts counted by outcome in each of {@code hours} hours from {@code from}
     * on, oldest first, every hour present (empty counts when it had none).
     *
     * @param from  the start of the first hour: a whole UTC hour
     * @param hours 1 to {@value #MAX_STATS_HOURS}
     */
    public List<AttemptBucket> attemptsPerHour(String accountId, Instant from, int hours) {
        if (!from.truncatedTo(ChronoUnit.HOURS).equals(from)) {
            throw new IllegalArgumentException("from must be a whole hour, was " + from);
        }
        if (hours < 1 || hours > MAX_STATS_HOURS) {
            throw new IllegalArgumentException("hours must be 1 to " + MAX_STATS_HOURS + ", was " + hours);
        }
        return store.attemptsPerHour(accountId, from, hours);
    }

    /** The delivery with its payload and every attempt. */
    public Optional<DeliveryDetail> delivery(String accountId, String deliveryId) {
        return store.delivery(accountId, deliveryId);
    }

    /**
     * Sends the delivery again now: a pending one sooner, a failed one again, a succeeded one once
     * more (a replay). It becomes pending and due now, and the next attempt, by any dispatcher,
     * carries the same {@code webhook-id}, signed afresh with a new timestamp. The attempt counts
     * like any other: a failure is scheduled by the retry schedule after the attempts made so far,
     * or fails the delivery again if the schedule is used up. Not retried ({@link RetryOutcome.NotRetryable}):
     * a delivery whose attempt is under way, and any delivery of a disabled endpoint (enable it
     * first). Each call that is retried causes one more attempt; a caller that may repeat its
     * request should make the call idempotent (the server's idempotency keys do). Of a paused
     * endpoint it is sent on resume. Of an ordered endpoint it is sent outside its key's order:
     * a retry is an explicit request to send this one now.
     */
    public RetryOutcome retry(String accountId, String deliveryId) {
        return store.retry(accountId, deliveryId);
    }

    /**
     * Makes every failed delivery of the endpoint whose event is at or after {@code since} due
     * now (of a paused endpoint: on resume), outside any key's order; answers how many, or empty
     * if the account has no such endpoint.
     */
    public OptionalInt recover(String accountId, String endpointId, Instant since) {
        return store.recover(accountId, endpointId, since);
    }

    private static Duration checkGrace(Duration grace) {
        Objects.requireNonNull(grace, "grace");
        if (grace.isNegative() || grace.compareTo(MAX_ROTATION_GRACE) > 0) {
            throw new IllegalArgumentException("rotation grace must be 0 to " + MAX_ROTATION_GRACE + ", was " + grace);
        }
        return grace;
    }

    /** Builds {@link WebhookEndpoints}. Not threadsafe; the built store is immutable. */
    public static final class Builder {
        private final DataSource dataSource;
        private Clock clock = Clock.systemUTC();
        private Duration rotationGrace = DEFAULT_ROTATION_GRACE;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The wall clock for creation, update and expiry times (default: system UTC). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How long the old secret keeps signing after a rotation (0 to 7 days; default 24 hours). */
        public Builder rotationGrace(Duration rotationGrace) {
            this.rotationGrace = checkGrace(rotationGrace);
            return this;
        }

        /** The store. */
        public WebhookEndpoints build() {
            return new WebhookEndpoints(this);
        }
    }
}

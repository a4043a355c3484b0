package dev.retrysafe.sdk.internal;

import dev.retrysafe.sdk.Delivery;
import dev.retrysafe.sdk.DeliveryAttempt;
import dev.retrysafe.sdk.DeliveryDetail;
import dev.retrysafe.sdk.Event;
import dev.retrysafe.sdk.Job;
import dev.retrysafe.sdk.JobStatus;
import dev.retrysafe.sdk.Page;
import dev.retrysafe.sdk.Payment;
import dev.retrysafe.sdk.Problem;
import dev.retrysafe.sdk.RateLimitBudget;
import dev.retrysafe.sdk.RateLimitStatus;
import dev.retrysafe.sdk.Recovery;
import dev.retrysafe.sdk.Refund;
import dev.retrysafe.sdk.WebhookAttemptStats;
import dev.retrysafe.sdk.WebhookEndpoint;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The API's JSON objects read into the client's records, by the member names of API.md and the
 * OpenAPI document; a member missing or of the wrong type is an {@link IOException} naming it.
 * Stateless and threadsafe.
 */
final class Resources {

    /** Reads one item of a list. */
    @FunctionalInterface
    interface Reader<T> {
        T read(JsonFields f) throws IOException;
    }

    private Resources() {}

    /** A page {@code {"data": [...], "has_more": ...}} of items read by {@code reader}. */
    static <T> Page<T> page(JsonFields page, String itemWhat, Reader<T> reader) throws IOException {
        List<T> items = new ArrayList<>();
        for (JsonFields item : page.objects("data", itemWhat)) {
            items.add(reader.read(item));
        }
        return new Page<>(items, page.bool("has_more"));
    }

    static Payment payment(JsonFields f) throws IOException {
        return new Payment(
                f.string("id"),
                f.integer("amount"),
                f.integer("amount_refunded"),
                f.string("currency"),
                f.string("status"),
                f.optString("description"),
                f.instant("created_at"));
    }

    static Refund refund(JsonFields f) throws IOException {
        return new Refund(
                f.string("id"),
                f.string("payment_id"),
                f.integer("amount"),
                f.string("status"),
                f.instant("created_at"));
    }

    static Job job(JsonFields f) throws IOException {
        JobStatus status;
        try {
            status = JobStatus.fromWireName(f.string("status"));
        } catch (IllegalArgumentException e) {
            throw new IOException("unexpected answer: " + e.getMessage(), e);
        }
        JsonFields error = f.optObject("error", "job error");
        Problem problem = null;
        if (error != null) {
            problem = new Problem(
                    error.optString("type") == null ? "about:blank" : error.string("type"),
                    error.optString("title") == null ? "" : error.string("title"),
                    0,
                    error.optString("detail"),
                    error.members());
        }
        // cancel_requested is in every job the API answers; an older server without it means "no"
        boolean cancelRequested = f.members().get("cancel_requested") != null && f.bool("cancel_requested");
        return new Job(
                f.string("id"),
                f.string("kind"),
                status,
                f.instant("created_at"),
                f.optInstant("started_at"),
                f.optInstant("finished_at"),
                f.optInt("progress"),
                cancelRequested,
                f.optString("result_url"),
                problem);
    }

    static WebhookEndpoint endpoint(JsonFields f) throws IOException {
        return new WebhookEndpoint(
                f.string("id"),
                f.string("url"),
                f.optString("description"),
                f.strings("event_types"),
                f.bool("enabled"),
                f.optString("disabled_reason"),
                f.optInt("rate_limit"),
                f.instant("created_at"),
                f.instant("updated_at"),
                f.optInstant("failing_since"),
                f.optInstant("previous_secret_expires_at"),
                f.optInstant("paused_at"),
                f.optBool("ordered"),
                f.optStrings("header_names"));
    }

    static Event event(JsonFields f) throws IOException {
        return new Event(
                f.string("id"),
                f.string("type"),
                f.instant("timestamp"),
                f.optString("ordering_key"),
                f.object("data", "event data").members());
    }

    static Delivery delivery(JsonFields f) throws IOException {
        return new Delivery(
                f.string("id"),
                f.string("endpoint_id"),
                f.string("event_id"),
                f.string("event_type"),
                f.string("status"),
                count(f, "attempt_count"),
                f.optInstant("next_attempt_at"),
                f.instant("created_at"),
                f.optInstant("last_attempt_at"),
                f.optString("last_outcome"),
                f.optInt("last_status_code"));
    }

    static DeliveryDetail deliveryDetail(JsonFields f) throws IOException {
        Object payload = f.members().get("payload");
        if (!(payload instanceof Map<?, ?>) && !(payload instanceof String)) {
            throw new IOException("unexpected answer: member 'payload' of the delivery is not an object or a string");
        }
        List<DeliveryAttempt> attempts = new ArrayList<>();
        for (JsonFields a : f.objects("attempts", "delivery attempt")) {
            attempts.add(new DeliveryAttempt(
                    a.string("id"),
                    count(a, "number"),
                    a.instant("started_at"),
                    a.string("outcome"),
                    a.optInt("status_code"),
                    Duration.ofMillis(a.integer("latency_ms")),
                    a.string("response"),
                    a.optString("error")));
        }
        return new DeliveryDetail(delivery(f), payload, attempts);
    }

    static Recovery recovery(JsonFields f) throws IOException {
        return new Recovery(f.string("endpoint_id"), f.instant("since"), count(f, "recovered"));
    }

    static WebhookAttemptStats attemptStats(JsonFields f) throws IOException {
        List<WebhookAttemptStats.Bucket> buckets = new ArrayList<>();
        for (JsonFields b : f.objects("buckets", "attempt bucket")) {
            JsonFields outcomes = b.object("outcomes", "attempt counts");
            Map<String, Long> counts = new LinkedHashMap<>();
            for (String outcome : outcomes.members().keySet()) {
                counts.put(outcome, outcomes.integer(outcome));
            }
            buckets.add(new WebhookAttemptStats.Bucket(b.instant("start"), counts));
        }
        return new WebhookAttemptStats(
                f.instant("from"), f.instant("to"), Duration.ofSeconds(f.integer("bucket_seconds")), buckets);
    }

    static RateLimitStatus rateLimits(JsonFields f) throws IOException {
        List<RateLimitBudget> policies = new ArrayList<>();
        for (JsonFields p : f.objects("policies", "rate-limit policy")) {
            Long reset = p.optLong("reset_seconds");
            policies.add(new RateLimitBudget(
                    p.string("name"),
                    p.string("scope"),
                    p.string("algorithm"),
                    p.integer("limit"),
                    Duration.ofMillis(
                            p.decimal("window_seconds").movePointRight(3).longValue()),
                    p.bool("known"),
                    p.optLong("remaining"),
                    p.optLong("used"),
                    reset == null ? null : Duration.ofSeconds(reset),
                    p.optInstant("reset_at")));
        }
        return new RateLimitStatus(f.bool("enabled"), policies);
    }

    /** A required integer that fits an {@code int}. */
    private static int count(JsonFields f, String name) throws IOException {
        long n = f.integer(name);
        if (n != (int) n) {
            throw new IOException("unexpected answer: member '" + name + "' of the " + f.what() + " is out of range");
        }
        return (int) n;
    }
}

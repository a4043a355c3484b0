package dev.retrysafe.server.webhooks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.delivery.Delivery;
import dev.retrysafe.delivery.EndpointHealth;
import dev.retrysafe.delivery.EndpointUpdate;
import dev.retrysafe.delivery.EndpointWithSecret;
import dev.retrysafe.delivery.NewEndpoint;
import dev.retrysafe.delivery.Page;
import dev.retrysafe.delivery.PageRequest;
import dev.retrysafe.delivery.RetryOutcome;
import dev.retrysafe.delivery.TargetDecision;
import dev.retrysafe.delivery.TargetGuard;
import dev.retrysafe.delivery.WebhookEndpoint;
import dev.retrysafe.delivery.WebhookEndpoints;
import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.http.BodyFields;
import dev.retrysafe.server.http.FieldError;
import dev.retrysafe.server.http.JsonBody;
import dev.retrysafe.server.http.ListQuery;
import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.ProblemType;
import dev.retrysafe.server.http.Problems;
import dev.retrysafe.server.http.QueryInts;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.RequestEffects;
import dev.retrysafe.server.http.Responses;
import dev.retrysafe.servlet.RequestTransaction;
import io.javalin.http.Context;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The handlers of {@code /v1/webhook_endpoints}, {@code /v1/deliveries}, an event's deliveries and
 * the attempt statistics. Every endpoint answer carries its health over the last 24 hours. URLs pass the
 * {@link TargetGuard} before they are stored; changes made by a POST join the request's
 * transaction when the idempotency filter bound one, so the change and the stored answer commit
 * together. Another account's ids answer {@code 404} like unknown ones. This class is threadsafe.
 */
public final class WebhookRoutes {

    private static final String ENDPOINT = "we_";
    private static final String DELIVERY = "msg_";
    private static final Set<String> CREATE_FIELDS =
            Set.of("url", "event_types", "description", "rate_limit", "ordered", "headers");
    private static final Set<String> UPDATE_FIELDS =
            Set.of("url", "event_types", "description", "enabled", "rate_limit", "ordered", "headers");

    private static final String EVENT = "evt_";
    /** Most hours {@code GET /v1/webhook_attempt_stats} covers (a week). */
    static final int MAX_STATS_HOURS = 168;

    /** Whether an account has an event (the events table belongs to the server, not to delivery). */
    @FunctionalInterface
    public interface EventLookup {
        /** Whether {@code accountId} has the event {@code eventId}. */
        boolean has(String accountId, String eventId) throws SQLException;
    }

    private final WebhookEndpoints endpoints;
    private final Function<DataSource, WebhookEndpoints> storeOver;
    private final TargetGuard guard;
    private final EventLookup events;
    private final Clock clock;
    private final int maxBodyBytes;

    /**
     * Handlers over {@code endpoints}; {@code storeOver} builds the same store over another data
     * source (the request's transaction); {@code guard} checks every URL; {@code events} tells
     * whose an event is; {@code clock} ends the health window.
     */
    public WebhookRoutes(
            WebhookEndpoints endpoints,
            Function<DataSource, WebhookEndpoints> storeOver,
            TargetGuard guard,
            EventLookup events,
            Clock clock,
            int maxBodyBytes) {
        this.endpoints = endpoints;
        this.storeOver = storeOver;
        this.guard = guard;
        this.events = events;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    /**
     * {@code POST /v1/webhook_endpoints} {@code {url, event_types, description?, rate_limit?, ordered?,
     * headers?}}:
     * {@code 201} with the secret.
     */
    public void create(Context ctx) throws Exception {
        Account account = RequestAccount.require(ctx.req());
        ObjectNode body = body(ctx);
        if (body == null) {
            return;
        }
        BodyFields f = new BodyFields(body, CREATE_FIELDS);
        String url = f.string("url", true, EndpointFields.MAX_URL_LENGTH);
        Set<String> types = EndpointFields.eventTypes(f, "event_types", true);
        String description = f.string("description", false, EndpointFields.MAX_DESCRIPTION_LENGTH);
        EndpointFields.RateLimit rate = EndpointFields.rateLimit(f, body, "rate_limit");
        Boolean ordered = f.bool("ordered");
        Map<String, String> headers = EndpointFields.headers(f, body, "headers");
        if (!f.errors().isEmpty() || url == null || types == null) {
            Problems.respond(ctx, Problem.invalid(f.errors()));
            return;
        }
        URI target = checkedUrl(ctx, url);
        if (target == null) {
            return;
        }
        EndpointWithSecret created = writer(ctx)
                .create(
                        account.id(),
                        new NewEndpoint(
                                target,
                                types,
                                description == null ? "" : description,
                                rate.perSecond(),
                                Boolean.TRUE.equals(ordered),
                                headers == null ? Map.of() : headers));
        ctx.header("Location", "/v1/webhook_endpoints/" + created.endpoint().id());
        Responses.json(ctx, 201, WebhookJson.endpointWithSecret(created, EndpointHealth.NONE));
    }

    /** {@code GET /v1/webhook_endpoints}, newest first, with the health of all of them from one query. */
    public void list(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        PageRequest page = pageRequest(ctx, ENDPOINT);
        if (page != null) {
            Page<WebhookEndpoint> found = endpoints.list(account.id(), page);
            Map<String, EndpointHealth> health = health(
                    account, found.items().stream().map(WebhookEndpoint::id).toList());
            Responses.json(ctx, 200, list(found, e -> WebhookJson.endpoint(e, health.get(e.id()))));
        }
    }

    /** {@code GET /v1/webhook_endpoints/{id}}. */
    public void get(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        answer(ctx, account, id, Ids.looksLike(ENDPOINT, id) ? endpoints.get(account.id(), id) : Optional.empty());
    }

    /**
     * {@code PATCH /v1/webhook_endpoints/{id}} {@code {url?, event_types?, description?, enabled?, rate_limit?,
     * ordered?, headers?}}; {@code "rate_limit": null} removes the limit; {@code headers} replaces the whole set
     * ({@code {}} or {@code null}: none).
     */
    public void update(Context ctx) throws Exception {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        if (!Ids.looksLike(ENDPOINT, id)) {
            notFound(ctx, "webhook endpoint", id);
            return;
        }
        ObjectNode body = body(ctx);
        if (body == null) {
            return;
        }
        BodyFields f = new BodyFields(body, UPDATE_FIELDS);
        String url = f.string("url", false, EndpointFields.MAX_URL_LENGTH);
        Set<String> types = EndpointFields.eventTypes(f, "event_types", false);
        String description = f.string("description", false, EndpointFields.MAX_DESCRIPTION_LENGTH);
        Boolean enabled = f.bool("enabled");
        EndpointFields.RateLimit rate = EndpointFields.rateLimit(f, body, "rate_limit");
        Boolean ordered = f.bool("ordered");
        Map<String, String> headers = EndpointFields.headers(f, body, "headers");
        if (!f.errors().isEmpty()) {
            Problems.respond(ctx, Problem.invalid(f.errors()));
            return;
        }
        URI target = null;
        if (url != null) {
            target = checkedUrl(ctx, url);
            if (target == null) {
                return;
            }
        }
        Optional<WebhookEndpoint> updated = writer(ctx)
                .update(
                        account.id(),
                        id,
                        new EndpointUpdate(
                                target,
                                types,
                                description,
                                enabled,
                                rate.perSecond(),
                                rate.present() && rate.perSecond() == null,
                                ordered,
                                headers));
        if (updated.isPresent() && Boolean.FALSE.equals(ordered)) {
            RequestEffects.deliveriesChanged(); // what waited for its key's turn is due now
        }
        answer(ctx, account, id, updated);
    }

    /** {@code DELETE /v1/webhook_endpoints/{id}}: the endpoint with its deliveries. */
    public void delete(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        if (Ids.looksLike(ENDPOINT, id) && writer(ctx).delete(account.id(), id)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", id);
            m.put("object", "webhook_endpoint");
            m.put("deleted", true);
            Responses.json(ctx, 200, m);
        } else {
            notFound(ctx, "webhook endpoint", id);
        }
    }

    /** {@code GET /v1/webhook_endpoints/{id}/secret}. */
    public void secret(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        (Ids.looksLike(ENDPOINT, id)
                        ? endpoints.secret(account.id(), id)
                        : Optional.<dev.retrysafe.webhooks.WebhookSecret>empty())
                .ifPresentOrElse(
                        s -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("object", "webhook_endpoint_secret");
                            m.put("endpoint_id", id);
                            m.put("secret", s.encoded());
                            Responses.json(ctx, 200, m);
                        },
                        () -> notFound(ctx, "webhook endpoint", id));
    }

    /** {@code POST /v1/webhook_endpoints/{id}/rotate_secret}: the new secret; the old one signs during the grace period. */
    public void rotateSecret(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        (Ids.looksLike(ENDPOINT, id)
                        ? writer(ctx).rotateSecret(account.id(), id)
                        : Optional.<EndpointWithSecret>empty())
                .ifPresentOrElse(
                        e -> Responses.json(ctx, 200, WebhookJson.endpointWithSecret(e, health(account, id))),
                        () -> notFound(ctx, "webhook endpoint", id));
    }

    /** {@code POST /v1/webhook_endpoints/{id}/enable}: enabled, its failing streak forgotten. */
    public void enable(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        Optional<WebhookEndpoint> enabled =
                Ids.looksLike(ENDPOINT, id) ? writer(ctx).enable(account.id(), id) : Optional.empty();
        if (enabled.isPresent()) {
            RequestEffects.deliveriesChanged(); // its held-back deliveries are due again
        }
        answer(ctx, account, id, enabled);
    }

    /**
     * {@code POST /v1/webhook_endpoints/{id}/pause}: its deliveries are held (none attempted,
     * none failed, the failing streak stops) until it is resumed; {@code status: paused}.
     * Pausing a paused endpoint changes nothing.
     */
    public void pause(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        answer(ctx, account, id, Ids.looksLike(ENDPOINT, id) ? writer(ctx).pause(account.id(), id) : Optional.empty());
    }

    /**
     * {@code POST /v1/webhook_endpoints/{id}/resume}: what waited is sent, oldest first (of an
     * ordered endpoint, each key in its order). Resuming an endpoint that is not paused changes nothing.
     */
    public void resume(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        Optional<WebhookEndpoint> resumed =
                Ids.looksLike(ENDPOINT, id) ? writer(ctx).resume(account.id(), id) : Optional.empty();
        if (resumed.isPresent()) {
            RequestEffects.deliveriesChanged(); // what waited is due now
        }
        answer(ctx, account, id, resumed);
    }

    /** {@code GET /v1/webhook_endpoints/{id}/deliveries}, newest first. */
    public void deliveries(Context ctx) throws SQLException {
        deliveryList(ctx, ENDPOINT, "webhook endpoint", endpoints::deliveries);
    }

    /**
     * {@code GET /v1/events/{id}/deliveries}: the event's deliveries to every endpoint, newest
     * first; {@code 404} for an event the account does not have.
     */
    public void eventDeliveries(Context ctx) throws SQLException {
        deliveryList(
                ctx,
                EVENT,
                "event",
                (account, id, page) -> events.has(account, id)
                        ? Optional.of(endpoints.eventDeliveries(account, id, page))
                        : Optional.empty());
    }

    /** Finds a page of deliveries of one resource; empty when the account has no such resource. */
    @FunctionalInterface
    private interface DeliveryLookup {
        Optional<Page<Delivery>> find(String accountId, String id, PageRequest page) throws SQLException;
    }

    /** A page of the deliveries of the resource {@code {id}} (a {@code noun} with ids {@code prefix}...). */
    private static void deliveryList(Context ctx, String prefix, String noun, DeliveryLookup lookup)
            throws SQLException {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        if (!Ids.looksLike(prefix, id)) {
            notFound(ctx, noun, id);
            return;
        }
        PageRequest page = pageRequest(ctx, DELIVERY);
        if (page != null) {
            lookup.find(account.id(), id, page)
                    .ifPresentOrElse(
                            p -> Responses.json(ctx, 200, list(p, WebhookJson::delivery)),
                            () -> notFound(ctx, noun, id));
        }
    }

    /**
     * {@code GET /v1/webhook_attempt_stats?hours=}: the account's attempts by outcome in each of
     * the last {@code hours} hours (1 to {@value #MAX_STATS_HOURS}, default 24), whole UTC hours,
     * the last one the current hour.
     */
    public void attemptStats(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        OptionalInt parsed =
                QueryInts.inRange(ctx.queryParam("hours"), WebhookJson.HEALTH_WINDOW_HOURS, 1, MAX_STATS_HOURS);
        if (parsed.isEmpty()) {
            Problems.respond(ctx, Problem.invalid(List.of(QueryInts.outOfRange("hours", 1, MAX_STATS_HOURS))));
            return;
        }
        int hours = parsed.getAsInt();
        Instant from = clock.instant().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(hours - 1L));
        Responses.json(
                ctx, 200, WebhookJson.attemptStats(from, hours, endpoints.attemptsPerHour(account.id(), from, hours)));
    }

    /** {@code POST /v1/webhook_endpoints/{id}/recover} {@code {since}}: re-sends failed deliveries since then. */
    public void recover(Context ctx) throws Exception {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        if (!Ids.looksLike(ENDPOINT, id)) {
            notFound(ctx, "webhook endpoint", id);
            return;
        }
        ObjectNode body = body(ctx);
        if (body == null) {
            return;
        }
        BodyFields f = new BodyFields(body, Set.of("since"));
        Instant since = f.time("since", true);
        if (!f.errors().isEmpty() || since == null) {
            Problems.respond(ctx, Problem.invalid(f.errors()));
            return;
        }
        OptionalInt recovered = writer(ctx).recover(account.id(), id, since);
        if (recovered.isEmpty()) {
            notFound(ctx, "webhook endpoint", id);
            return;
        }
        if (recovered.getAsInt() > 0) {
            RequestEffects.deliveriesChanged();
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("object", "recovery");
        m.put("endpoint_id", id);
        m.put("since", WebhookJson.time(since));
        m.put("recovered", recovered.getAsInt());
        Responses.json(ctx, 202, m);
    }

    /** {@code GET /v1/deliveries/{id}}: the delivery, its payload and every attempt. */
    public void delivery(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        (Ids.looksLike(DELIVERY, id)
                        ? endpoints.delivery(account.id(), id)
                        : Optional.<dev.retrysafe.delivery.DeliveryDetail>empty())
                .ifPresentOrElse(
                        d -> Responses.json(ctx, 200, WebhookJson.deliveryDetail(d)),
                        () -> notFound(ctx, "delivery", id));
    }

    /**
     * {@code POST /v1/deliveries/{id}/retry}: {@code 202}, sent again now (also a succeeded
     * delivery: a replay with the same {@code webhook-id}); {@code 409} while an attempt is under
     * way or when its endpoint is disabled.
     */
    public void retry(Context ctx) {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        RetryOutcome outcome =
                Ids.looksLike(DELIVERY, id) ? writer(ctx).retry(account.id(), id) : new RetryOutcome.NotFound();
        switch (outcome) {
            case RetryOutcome.Retried r -> {
                RequestEffects.deliveriesChanged();
                Responses.json(ctx, 202, WebhookJson.delivery(r.delivery()));
            }
            case RetryOutcome.NotFound n -> notFound(ctx, "delivery", id);
            case RetryOutcome.NotRetryable n -> Problems.respond(ctx, notRetryable(id, n));
        }
    }

    private static Problem notRetryable(String id, RetryOutcome.NotRetryable n) {
        String endpoint = n.delivery().endpointId();
        String detail = switch (n.reason()) {
            case ENDPOINT_DISABLED ->
                "Delivery '" + id + "' cannot be sent again: its webhook endpoint '" + endpoint
                        + "' is disabled. Enable it (POST /v1/webhook_endpoints/" + endpoint + "/enable), then retry.";
            case ATTEMPT_UNDER_WAY ->
                "Delivery '" + id + "' is being attempted right now; look at it again once"
                        + " the attempt has ended (within the attempt timeout), then retry if you still need to.";
        };
        return Problem.of(ProblemType.DELIVERY_NOT_RETRYABLE, detail)
                // an attempt under way ends by itself; a disabled endpoint waits for the client
                .with("retryable", n.reason() == RetryOutcome.Reason.ATTEMPT_UNDER_WAY)
                .with("reason", n.reason().wireName())
                .with("delivery_status", n.status().wireName())
                .with("endpoint_id", endpoint);
    }

    /** The URL if the guard allows it, else the {@code 422} problem has been answered and {@code null} returned. */
    private @Nullable URI checkedUrl(Context ctx, String url) {
        TargetDecision decision = guard.check(url);
        if (decision instanceof TargetDecision.Refused refused) {
            Problems.respond(
                    ctx,
                    Problem.of(ProblemType.WEBHOOK_URL_REFUSED, "url: " + refused.message())
                            .with("reason", refused.reason().name().toLowerCase(Locale.ROOT))
                            .with("errors", List.of(new FieldError("url", refused.message()))));
            return null;
        }
        try {
            URI uri = new URI(url);
            new NewEndpoint(uri, Set.of("*"), ""); // the store's own form check, so it cannot fail later
            return uri;
        } catch (java.net.URISyntaxException | IllegalArgumentException e) {
            Problems.respond(
                    ctx,
                    Problem.invalid(
                            List.of(new FieldError("url", "must be an absolute http or https URL with a host"))));
            return null;
        }
    }

    /** The store writing in the request's transaction when the idempotency filter bound one. */
    private WebhookEndpoints writer(Context ctx) {
        Connection bound = RequestTransaction.connection(ctx.req());
        return bound == null ? endpoints : storeOver.apply(new JoinedTransaction(bound));
    }

    private @Nullable ObjectNode body(Context ctx) throws Exception {
        JsonBody.Result read = JsonBody.read(ctx, maxBodyBytes);
        if (read instanceof JsonBody.Rejected r) {
            Problems.respond(ctx, r.problem());
            return null;
        }
        return ((JsonBody.Parsed) read).object();
    }

    private static @Nullable PageRequest pageRequest(Context ctx, String idPrefix) {
        ListQuery.Parsed parsed = ListQuery.parse(ctx.queryParam("limit"), ctx.queryParam("starting_after"), idPrefix);
        if (parsed instanceof ListQuery.Invalid invalid) {
            Problems.respond(ctx, Problem.invalid(invalid.errors()));
            return null;
        }
        ListQuery q = ((ListQuery.Valid) parsed).query();
        return new PageRequest(q.limit(), q.startingAfter());
    }

    private static <T> Map<String, Object> list(Page<T> page, Function<T, ?> render) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("object", "list");
        m.put("data", page.items().stream().map(render).toList());
        m.put("has_more", page.hasMore());
        return m;
    }

    private void answer(Context ctx, Account account, String id, Optional<WebhookEndpoint> endpoint) {
        endpoint.ifPresentOrElse(
                e -> Responses.json(ctx, 200, WebhookJson.endpoint(e, health(account, id))),
                () -> notFound(ctx, "webhook endpoint", id));
    }

    /** The health of one endpoint over the last {@value WebhookJson#HEALTH_WINDOW_HOURS} hours. */
    private EndpointHealth health(Account account, String endpointId) {
        return health(account, List.of(endpointId)).get(endpointId);
    }

    /** The health of the endpoints over the last {@value WebhookJson#HEALTH_WINDOW_HOURS} hours, in one query. */
    private Map<String, EndpointHealth> health(Account account, List<String> endpointIds) {
        Instant since = clock.instant().minus(Duration.ofHours(WebhookJson.HEALTH_WINDOW_HOURS));
        return endpoints.health(account.id(), endpointIds, since);
    }

    private static void notFound(Context ctx, String noun, String id) {
        Problems.respond(ctx, Problem.notFound(noun, noun.equals("webhook endpoint") ? ENDPOINT : DELIVERY, id));
    }
}

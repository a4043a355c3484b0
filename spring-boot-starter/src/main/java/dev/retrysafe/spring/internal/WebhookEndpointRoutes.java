package dev.retrysafe.spring.internal;

import dev.retrysafe.delivery.EndpointUpdate;
import dev.retrysafe.delivery.EndpointWithSecret;
import dev.retrysafe.delivery.NewEndpoint;
import dev.retrysafe.delivery.Page;
import dev.retrysafe.delivery.PageRequest;
import dev.retrysafe.delivery.WebhookEndpoint;
import dev.retrysafe.delivery.WebhookEndpointRepresentation;
import dev.retrysafe.spring.WebhookEndpointService;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * REST routes for the webhook endpoints of the configured account, under
 * {@code retrysafe.webhooks.out.routes.path}, with the request and answer shapes of the Retrysafe
 * server's {@code /v1/webhook_endpoints}: create ({@code 201} with the secret), list, get,
 * {@code PATCH}, pause, resume, delete and read the secret. Bad input answers a {@code 400}
 * problem; the SSRF guard's refusal too. Protect the path as the application protects its other
 * administrative routes. Threadsafe.
 */
@RestController
@RequestMapping("${retrysafe.webhooks.out.routes.path:/v1/webhook_endpoints}")
public final class WebhookEndpointRoutes {

    private static final Set<String> CREATE_FIELDS =
            Set.of("url", "event_types", "description", "rate_limit", "ordered", "headers");
    private static final Set<String> UPDATE_FIELDS =
            Set.of("url", "event_types", "description", "enabled", "rate_limit", "ordered", "headers");

    private final WebhookEndpointService endpoints;
    private final String account;

    /** The routes over {@code endpoints}, managing the endpoints of {@code account}. */
    public WebhookEndpointRoutes(WebhookEndpointService endpoints, String account) {
        this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
        this.account = Objects.requireNonNull(account, "account");
    }

    /**
     * {@code POST} {@code {url, event_types, description?, rate_limit?, ordered?, headers?}};
     * {@code headers} (name to string value) go on every attempt and are shown afterwards by name
     * only; {@code ordered} sends the events of one ordering key one at a time, in commit order.
     */
    @PostMapping
    public ResponseEntity<?> create(@RequestBody Map<String, @Nullable Object> body) {
        EndpointBody fields = new EndpointBody(body, CREATE_FIELDS);
        URI url = fields.url("url", true);
        Set<String> eventTypes = fields.strings("event_types", true);
        String description = fields.string("description", false);
        Integer rate = fields.integer("rate_limit");
        Boolean ordered = fields.bool("ordered");
        Map<String, String> headers = fields.headers("headers");
        if (fields.problem() != null || url == null || eventTypes == null) {
            return invalid(fields.problem());
        }
        EndpointWithSecret created;
        try {
            created = endpoints.create(
                    account,
                    new NewEndpoint(
                            url,
                            eventTypes,
                            description == null ? "" : description,
                            rate,
                            Boolean.TRUE.equals(ordered),
                            headers == null ? Map.of() : headers));
        } catch (IllegalArgumentException e) { // the guard's refusal, or a value out of range
            return invalid(e.getMessage());
        }
        Map<String, @Nullable Object> answer = endpoint(created.endpoint());
        answer.put("secret", created.secret().encoded());
        return ResponseEntity.status(HttpStatus.CREATED)
                .location(URI.create(pathOf(created.endpoint().id())))
                .body(answer);
    }

    /**
     * {@code PATCH /{id}} {@code {url?, event_types?, description?, enabled?, rate_limit?, ordered?,
     * headers?}}: the fields given change, the others stay; {@code "rate_limit": null} removes
     * the limit; {@code headers} replace the whole set ({@code {}} or {@code null}: none).
     */
    @PatchMapping("/{id}")
    public ResponseEntity<?> update(@PathVariable("id") String id, @RequestBody Map<String, @Nullable Object> body) {
        EndpointBody fields = new EndpointBody(body, UPDATE_FIELDS);
        URI url = fields.url("url", false);
        Set<String> eventTypes = fields.strings("event_types", false);
        String description = fields.string("description", false);
        Boolean enabled = fields.bool("enabled");
        Integer rate = fields.integer("rate_limit");
        Boolean ordered = fields.bool("ordered");
        Map<String, String> headers = fields.headers("headers");
        if (fields.problem() != null) {
            return invalid(fields.problem());
        }
        Optional<WebhookEndpoint> updated;
        try {
            boolean removeRate = fields.has("rate_limit") && rate == null;
            updated = endpoints.update(
                    account,
                    id,
                    new EndpointUpdate(url, eventTypes, description, enabled, rate, removeRate, ordered, headers));
        } catch (IllegalArgumentException e) { // the guard's refusal, or a value out of range
            return invalid(e.getMessage());
        }
        return answer(id, updated);
    }

    /**
     * {@code POST /{id}/pause}: its deliveries are held (none attempted, none failed) until it is
     * resumed; {@code status: paused}, {@code paused_at}. Pausing a paused endpoint changes nothing.
     */
    @PostMapping("/{id}/pause")
    public ResponseEntity<?> pause(@PathVariable("id") String id) {
        return answer(id, endpoints.pause(account, id));
    }

    /**
     * {@code POST /{id}/resume}: what waited is sent, oldest first (of an ordered endpoint, each
     * ordering key in commit order). Resuming an endpoint that is not paused changes nothing.
     */
    @PostMapping("/{id}/resume")
    public ResponseEntity<?> resume(@PathVariable("id") String id) {
        return answer(id, endpoints.resume(account, id));
    }

    /** {@code GET}: a page, newest first. */
    @GetMapping
    public ResponseEntity<?> list(
            @RequestParam(name = "limit", defaultValue = "10") int limit,
            @RequestParam(name = "starting_after", required = false) @Nullable String startingAfter) {
        if (limit < 1 || limit > PageRequest.MAX_LIMIT) {
            return invalid("limit must be 1 to " + PageRequest.MAX_LIMIT + ", was " + limit);
        }
        Page<WebhookEndpoint> page = endpoints.list(account, new PageRequest(limit, startingAfter));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("object", "list");
        m.put("data", page.items().stream().map(WebhookEndpointRoutes::endpoint).toList());
        m.put("has_more", page.hasMore());
        return ResponseEntity.ok(m);
    }

    /** {@code GET /{id}}. */
    @GetMapping("/{id}")
    public ResponseEntity<?> get(@PathVariable("id") String id) {
        return answer(id, endpoints.get(account, id));
    }

    /** {@code DELETE /{id}}: the endpoint with its deliveries. */
    @DeleteMapping("/{id}")
    public ResponseEntity<?> delete(@PathVariable("id") String id) {
        if (!endpoints.delete(account, id)) {
            return notFound(id);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("object", "webhook_endpoint");
        m.put("deleted", true);
        return ResponseEntity.ok(m);
    }

    /** {@code GET /{id}/secret}. */
    @GetMapping("/{id}/secret")
    public ResponseEntity<?> secret(@PathVariable("id") String id) {
        return endpoints
                .secret(account, id)
                .<ResponseEntity<?>>map(s -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("object", "webhook_endpoint_secret");
                    m.put("endpoint_id", id);
                    m.put("secret", s.encoded());
                    return ResponseEntity.ok(m);
                })
                .orElseGet(() -> notFound(id));
    }

    private String pathOf(String id) {
        return org.springframework.web.servlet.support.ServletUriComponentsBuilder.fromCurrentRequestUri()
                .path("/{id}")
                .buildAndExpand(id)
                .getPath();
    }

    private static ResponseEntity<?> answer(String id, Optional<WebhookEndpoint> endpoint) {
        return endpoint.<ResponseEntity<?>>map(e -> ResponseEntity.ok(endpoint(e)))
                .orElseGet(() -> notFound(id));
    }

    static Map<String, @Nullable Object> endpoint(WebhookEndpoint e) {
        return WebhookEndpointRepresentation.of(e);
    }

    private static ResponseEntity<ProblemDetail> invalid(@Nullable String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
        problem.setTitle("Invalid request");
        return ResponseEntity.badRequest().body(problem);
    }

    private static ResponseEntity<ProblemDetail> notFound(String id) {
        ProblemDetail problem =
                ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "No webhook endpoint '" + id + "'.");
        problem.setTitle("Not found");
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(problem);
    }
}

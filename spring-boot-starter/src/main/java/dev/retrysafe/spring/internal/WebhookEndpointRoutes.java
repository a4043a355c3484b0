package dev.retrysafe.spring.internal;

import dev.retrysafe.delivery.EndpointWithSecret;
import dev.retrysafe.delivery.NewEndpoint;
import dev.retrysafe.delivery.Page;
import dev.retrysafe.delivery.PageRequest;
import dev.retrysafe.delivery.WebhookEndpoint;
import dev.retrysafe.delivery.WebhookEndpointRepresentation;
import dev.retrysafe.spring.WebhookEndpointService;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
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
 * delete and read the secret. Bad input answers a {@code 400} problem; the SSRF guard's refusal
 * too. Protect the path as the application protects its other administrative routes. Threadsafe.
 */
@RestController
@RequestMapping("${retrysafe.webhooks.out.routes.path:/v1/webhook_endpoints}")
public final class WebhookEndpointRoutes {

    private static final Set<String> CREATE_FIELDS = Set.of(
            "url",
            "event_types",
            "description",
            "rate_limit"
            // custom headers (issue 35)
            ,
            "headers");

    private final WebhookEndpointService endpoints;
    private final String account;

    /** The routes over {@code endpoints}, managing the endpoints of {@code account}. */
    public WebhookEndpointRoutes(WebhookEndpointService endpoints, String account) {
        this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
        this.account = Objects.requireNonNull(account, "account");
    }

    /**
     * {@code POST} {@code {url, event_types, description?, rate_limit?, headers?}}; {@code headers}
     * (name to string value) go on every attempt and are shown afterwards by name only.
     */
    @PostMapping
    public ResponseEntity<?> create(@RequestBody Map<String, @Nullable Object> body) {
        for (String field : body.keySet()) {
            if (!CREATE_FIELDS.contains(field)) {
                return invalid("unknown field '" + field + "'");
            }
        }
        if (!(body.get("url") instanceof String url)) {
            return invalid("url is required, a string");
        }
        if (!(body.get("event_types") instanceof List<?> types) || types.isEmpty()) {
            return invalid("event_types is required, a non-empty array of strings");
        }
        Set<String> eventTypes = new LinkedHashSet<>();
        for (Object type : types) {
            if (!(type instanceof String s)) {
                return invalid("event_types must hold strings");
            }
            eventTypes.add(s);
        }
        Object description = body.getOrDefault("description", "");
        if (!(description instanceof String text)) {
            return invalid("description must be a string");
        }
        Object rate = body.get("rate_limit");
        if (rate != null && !(rate instanceof Integer)) {
            return invalid("rate_limit must be an integer or null");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        Object given = body.get("headers");
        if (given != null) {
            if (!(given instanceof Map<?, ?> map)) {
                return invalid("headers must be an object of header names to string values");
            }
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!(e.getValue() instanceof String value)) {
                    return invalid("headers: the value of header " + e.getKey() + " must be a string");
                }
                headers.put(String.valueOf(e.getKey()), value);
            }
        }
        EndpointWithSecret created;
        try {
            // a refused header's message names it, never quotes its value
            NewEndpoint endpoint = new NewEndpoint(new URI(url), eventTypes, text, (Integer) rate).withHeaders(headers);
            created = endpoints.create(account, endpoint);
        } catch (URISyntaxException e) {
            return invalid("url is not a URL: " + e.getReason());
        } catch (IllegalArgumentException e) {
            return invalid(e.getMessage());
        }
        Map<String, @Nullable Object> answer = endpoint(created.endpoint());
        answer.put("secret", created.secret().encoded());
        return ResponseEntity.status(HttpStatus.CREATED)
                .location(URI.create(pathOf(created.endpoint().id())))
                .body(answer);
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
        return endpoints
                .get(account, id)
                .<ResponseEntity<?>>map(e -> ResponseEntity.ok(endpoint(e)))
                .orElseGet(() -> notFound(id));
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

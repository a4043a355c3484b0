package com.example.payments.webhooks;

import com.example.payments.api.FieldError;
import com.example.payments.api.InvalidRequestException;
import com.example.payments.api.Problems;
import com.example.payments.auth.CurrentAccount;
import dev.retrysafe.delivery.EndpointWithSecret;
import dev.retrysafe.delivery.NewEndpoint;
import dev.retrysafe.spring.WebhookEndpointService;
import dev.retrysafe.spring.WebhookTargetRefusedException;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /v1/webhook_endpoints} {@code {url, event_types, description}}: an endpoint of the
 * caller's account, answered {@code 201} with its {@code secret} (the only time it is shown).
 */
@RestController
class WebhookEndpointController {

    private final WebhookEndpointService endpoints;

    WebhookEndpointController(WebhookEndpointService endpoints) {
        this.endpoints = endpoints;
    }

    @PostMapping(path = "/v1/webhook_endpoints", consumes = "application/json")
    ResponseEntity<Map<String, Object>> create(
            HttpServletRequest http, @RequestBody Map<String, @Nullable Object> body) {
        URI url;
        try {
            url = new URI(String.valueOf(body.get("url")));
        } catch (URISyntaxException e) {
            throw new InvalidRequestException(List.of(new FieldError("url", "must be an absolute http(s) URL")));
        }
        Set<String> types = new LinkedHashSet<>();
        if (body.get("event_types") instanceof List<?> list) {
            list.forEach(t -> types.add(String.valueOf(t)));
        }
        if (types.isEmpty()) {
            throw new InvalidRequestException(List.of(new FieldError("event_types", "must list at least one type")));
        }
        Object description = body.get("description");
        NewEndpoint endpoint;
        try {
            endpoint = new NewEndpoint(url, types, description instanceof String d ? d : "");
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(List.of(new FieldError("endpoint", e.getMessage())));
        }
        EndpointWithSecret made;
        try {
            made = endpoints.create(CurrentAccount.of(http), endpoint);
        } catch (WebhookTargetRefusedException e) {
            throw new ErrorResponseException(
                    HttpStatus.UNPROCESSABLE_CONTENT,
                    Problems.of(
                            HttpStatus.UNPROCESSABLE_CONTENT,
                            "webhook-url-refused",
                            "Webhook URL refused",
                            e.getMessage(),
                            false),
                    e);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", made.endpoint().id());
        m.put("object", "webhook_endpoint");
        m.put("url", made.endpoint().url().toString());
        m.put("event_types", made.endpoint().eventTypes());
        m.put("description", made.endpoint().description());
        m.put("enabled", made.endpoint().enabled());
        m.put("secret", made.secret().encoded());
        return ResponseEntity.created(
                        URI.create("/v1/webhook_endpoints/" + made.endpoint().id()))
                .body(m);
    }
}

package com.example.payments.payments;

import com.example.payments.api.ListQuery;
import com.example.payments.auth.CurrentAccount;
import dev.retrysafe.spring.Idempotent;
import dev.retrysafe.spring.RateLimited;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code /v1/payments}: the Retrysafe server's payments contract on Spring MVC. */
@RestController
@RequestMapping("/v1/payments")
class PaymentController {

    private final PaymentService payments;

    PaymentController(PaymentService payments) {
        this.payments = payments;
    }

    /**
     * {@code POST /v1/payments}: {@code 201} with the payment and its {@code Location}. One
     * transaction holds the bank's charge key, the payment, its event and (with Retrysafe) the
     * stored answer: they commit together, or none of them does.
     */
    @PostMapping(consumes = "application/json")
    @Idempotent
    @RateLimited("payments")
    @Transactional
    ResponseEntity<Map<String, @Nullable Object>> create(
            HttpServletRequest http,
            @RequestBody Map<String, @Nullable Object> body,
            @RequestHeader(name = "Idempotency-Key", required = false) @Nullable String idempotencyKey) {
        PaymentRequest request = PaymentRequest.parse(body);
        Payment payment = payments.create(CurrentAccount.of(http), request, bareKey(idempotencyKey));
        return ResponseEntity.created(URI.create("/v1/payments/" + payment.id()))
                .body(payment.json());
    }

    /** {@code GET /v1/payments/{id}}: the caller's payment, or {@code 404}. */
    @GetMapping("/{id}")
    Map<String, @Nullable Object> get(HttpServletRequest http, @PathVariable String id) {
        return payments.find(CurrentAccount.of(http), id).json();
    }

    /** {@code GET /v1/payments?limit=&starting_after=}: the caller's payments, newest first. */
    @GetMapping
    Map<String, Object> list(
            HttpServletRequest http,
            @RequestParam(name = "limit", required = false) @Nullable String limit,
            @RequestParam(name = "starting_after", required = false) @Nullable String startingAfter) {
        ListQuery query = ListQuery.parse(limit, startingAfter, "pay_");
        PaymentService.PageOf page = payments.page(CurrentAccount.of(http), query.limit(), query.startingAfter());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("object", "list");
        m.put("data", page.payments().stream().map(Payment::json).toList());
        m.put("has_more", page.hasMore());
        return m;
    }

    /** The key without the quotes of its Structured Field form ({@code "abc"} and {@code abc} are one key). */
    private static @Nullable String bareKey(@Nullable String key) {
        if (key != null && key.length() >= 2 && key.startsWith("\"") && key.endsWith("\"")) {
            return key.substring(1, key.length() - 1);
        }
        return key;
    }
}

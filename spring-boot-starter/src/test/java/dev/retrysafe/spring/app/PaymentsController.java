package dev.retrysafe.spring.app;

import dev.retrysafe.spring.Idempotent;
import dev.retrysafe.spring.RateLimited;
import java.net.URI;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** Payments: the insert in the controller's own @Transactional method, which Retrysafe's transaction must carry. */
@RestController
public class PaymentsController {

    private final JdbcTemplate jdbc;
    private final Gates gates;

    PaymentsController(JdbcTemplate jdbc, Gates gates) {
        this.jdbc = jdbc;
        this.gates = gates;
    }

    @Idempotent
    @RateLimited("payments")
    @Transactional
    @PostMapping("/v1/payments")
    public ResponseEntity<Map<String, Object>> create(
            @RequestHeader("X-Account") String account, @RequestBody Map<String, Object> body)
            throws InterruptedException {
        String id = "pay_" + UUID.randomUUID();
        jdbc.update("INSERT INTO payments (id, account, amount) VALUES (?, ?, ?)", id, account, body.get("amount"));
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                gates.afterCommits.incrementAndGet();
            }
        });
        switch (String.valueOf(body.getOrDefault("then", "ok"))) {
            case "throw" -> throw new IllegalStateException("failed after the insert");
            case "fail" -> {
                return ResponseEntity.status(503).body(Map.of("error", "bank down"));
            }
            case "hold" -> gates.hold();
            case "reject" -> throw new Rejected("the bank declined after the insert");
            default -> {}
        }
        return ResponseEntity.created(URI.create("/v1/payments/" + id))
                .body(Map.of("id", id, "amount", body.get("amount")));
    }

    /** A refusal the controller answers 400 itself, after its @Transactional method threw. */
    static final class Rejected extends RuntimeException {
        Rejected(String message) {
            super(message);
        }
    }

    @ExceptionHandler(Rejected.class)
    ResponseEntity<Map<String, Object>> rejected(Rejected e) {
        return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
    }

    @Idempotent(keyRequired = false)
    @PostMapping("/v1/payments/{id}/capture")
    public Map<String, Object> capture(@PathVariable("id") String id) {
        return Map.of("id", id, "captured", true);
    }

    @RateLimited("reads")
    @GetMapping("/v1/payments/{id}")
    public Map<String, Object> get(@PathVariable("id") String id) {
        return Map.of("id", id);
    }

    @PostMapping("/v1/plain")
    public Map<String, Object> plain() {
        return Map.of("plain", true);
    }
}

package com.example.payments.api;

import java.util.Map;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /ready}, as the Retrysafe server answers it: {@code 200} while the application
 * accepts traffic and its database answers, {@code 503} otherwise (during a graceful shutdown,
 * say). Actuator's probes ({@code /actuator/health/liveness}, {@code /readiness}) stand beside it.
 */
@RestController
class ReadyController {

    private final ApplicationAvailability availability;
    private final JdbcTemplate jdbc;

    ReadyController(ApplicationAvailability availability, JdbcTemplate jdbc) {
        this.availability = availability;
        this.jdbc = jdbc;
    }

    @GetMapping("/ready")
    ResponseEntity<Map<String, Object>> ready() {
        if (availability.getReadinessState() != ReadinessState.ACCEPTING_TRAFFIC) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                    .body(Map.of("status", "stopping", "checks", Map.of()));
        }
        try {
            jdbc.queryForObject("SELECT 1", Integer.class);
        } catch (RuntimeException e) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                    .body(Map.of("status", "unavailable", "checks", Map.of("database", "unreachable")));
        }
        return ResponseEntity.ok(Map.of("status", "ready", "checks", Map.of("database", "ok")));
    }
}

package dev.retrysafe.spring.docs;

import dev.retrysafe.spring.Idempotent;
import java.net.URI;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class OrderController {

    private final JdbcClient jdbc;

    OrderController(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @PostMapping("/v1/orders")
    @Idempotent
    @Transactional
    ResponseEntity<Map<String, String>> create(@RequestBody String order) {
        String id = "ord_" + UUID.randomUUID().toString().replace("-", "");
        jdbc.sql("INSERT INTO orders (id, body) VALUES (?, ?)")
                .params(id, order)
                .update();
        return ResponseEntity.created(URI.create("/v1/orders/" + id)).body(Map.of("id", id));
    }
}

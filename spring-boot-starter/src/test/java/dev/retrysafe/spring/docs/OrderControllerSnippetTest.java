package dev.retrysafe.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.spring.RetrysafeCaller;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The Spring Boot controller that docs/libraries.md quotes (acceptance's LibrariesGuideTest checks
 * the quote), run as the page says: the application.yml's settings, a key on the POST, and a retry
 * that answers the same without a second order.
 */
@SpringBootTest(
        classes = OrderControllerSnippetTest.Shop.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:docs_orders;MODE=PostgreSQL;DB_CLOSE_DELAY=-1",
            "retrysafe.idempotency.key-ttl=24h"
        })
class OrderControllerSnippetTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(OrderController.class)
    static class Shop {
        @Bean
        RetrysafeCaller caller() {
            return request -> "acct_docs";
        }

        @Bean
        InitializingBean ordersTable(JdbcTemplate jdbc) {
            return () -> jdbc.execute("CREATE TABLE orders (id VARCHAR(40) PRIMARY KEY, body TEXT NOT NULL)");
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void aRetriedOrderIsMadeOnceAndAnsweredTheSame() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpRequest order = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/orders"))
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", UUID.randomUUID().toString())
                    .POST(HttpRequest.BodyPublishers.ofString("{\"sku\": \"tea\", \"quantity\": 2}"))
                    .build();

            HttpResponse<String> first = http.send(order, HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> retry = http.send(order, HttpResponse.BodyHandlers.ofString());

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM orders", Integer.class))
                    .isEqualTo(1);

            HttpResponse<String> keyless = http.send(
                    HttpRequest.newBuilder(order.uri())
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(keyless.statusCode())
                    .as("the key is required by default")
                    .isEqualTo(400);
        }
    }
}

package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Stopping the server (SIGTERM runs the same close) lets a request that is already at the bank
 * finish and commit, and refuses new connections. On the embedded H2 database this used to fail
 * with "Database is already closed" because H2 closed the file from its own shutdown hook.
 */
class GracefulShutdownTest {

    @Test
    void inFlightPaymentFinishesWhileTheServerStops() throws Exception {
        CountDownLatch atBank = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        TestServer server = TestServer.h2()
                .bankProcessing((chargeKey, latency) -> {
                    atBank.countDown();
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("test never released the bank");
                    }
                })
                .start();
        CompletableFuture<Void> stopping = null;
        try {
            Api api = Api.of(server);
            HttpRequest health = HttpRequest.newBuilder(server.uri("/health"))
                    .timeout(Duration.ofSeconds(5))
                    .build();
            CompletableFuture<Api.Answer> payment = CompletableFuture.supplyAsync(
                    () -> api.post("/v1/payments", "{\"amount\": 500, \"currency\": \"eur\"}", "graceful-1"));
            assertThat(atBank.await(30, TimeUnit.SECONDS))
                    .as("payment reached the bank")
                    .isTrue();

            stopping = CompletableFuture.runAsync(server::close);
            release.countDown();

            Api.Answer answer = payment.get(30, TimeUnit.SECONDS);
            assertThat(answer.status()).isEqualTo(201);
            assertThat(answer.body().get("status").asText()).isEqualTo("succeeded");
            stopping.get(30, TimeUnit.SECONDS);

            try (HttpClient client = HttpClient.newHttpClient()) {
                assertThatThrownBy(() -> client.send(health, HttpResponse.BodyHandlers.discarding()))
                        .isInstanceOf(ConnectException.class);
            }
        } finally {
            release.countDown();
            if (stopping == null) {
                server.close();
            }
        }
    }
}

package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** The simulated bank's failure injection, seen through the API. */
class BankTest {

    @Test
    void declinedChargeMakesAFailedPaymentThatCannotBeRefunded() {
        try (TestServer server = TestServer.h2().declineRate(1.0).start()) {
            Api api = Api.of(server);

            Api.Answer a = api.post("/v1/payments", "{\"amount\": 500, \"currency\": \"usd\"}");

            assertThat(a.status()).isEqualTo(201);
            JsonNode payment = a.body();
            assertThat(payment.get("status").asText()).isEqualTo("failed");
            Api.Answer refund = api.post(
                    "/v1/refunds", "{\"payment_id\": \"" + payment.get("id").asText() + "\"}");
            assertThat(refund.status()).isEqualTo(422);
            assertThat(refund.body().get("type").asText()).isEqualTo("/problems/payment-not-refundable");
        }
    }

    @Test
    void unavailableBankAnswers503RetryableAndRecordsNothing() {
        try (TestServer server = TestServer.h2().errorRate(1.0).start()) {
            Api api = Api.of(server);

            Api.Answer a = api.post("/v1/payments", "{\"amount\": 500, \"currency\": \"usd\"}");

            assertThat(a.status()).isEqualTo(503);
            assertThat(a.body().get("type").asText()).isEqualTo("/problems/bank-unavailable");
            assertThat(a.body().get("retryable").asBoolean()).isTrue();
            assertThat(api.get("/v1/payments").body().get("data").size()).isZero();
        }
    }
}

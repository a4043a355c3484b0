package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A report's result is kept for its retention and then answers {@code 410 Gone}, on an injected clock. */
class ReportRetentionTest {

    @Test
    void theResultAnswers410AfterItsRetentionAndTheJobSaysSo() {
        FakeClock clock = new FakeClock(Instant.parse("2026-12-01T10:00:00Z"));
        try (TestServer server = TestServer.h2().clock(clock).start()) {
            Api api = Api.of(server);
            Api.Answer accepted = api.post(
                    "/v1/reports",
                    "{\"kind\": \"payments_csv\"}",
                    UUID.randomUUID().toString());
            assertThat(accepted.status()).isEqualTo(202);
            String location = accepted.header("Location");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> api.get(location).body().get("status").asText().equals("succeeded"));
            JsonNode job = api.get(location).body();
            Instant expiresAt = Instant.parse(job.get("result_expires_at").asText());
            assertThat(expiresAt)
                    .isEqualTo(Instant.parse(job.get("finished_at").asText()).plus(Duration.ofHours(24)));

            clock.set(expiresAt.minusMillis(1));
            assertThat(api.get(location + "/result").status()).isEqualTo(200);

            clock.set(expiresAt);
            Api.Answer gone = api.get(location + "/result");
            assertThat(gone.status()).isEqualTo(410);
            assertThat(gone.body().get("type").asText()).endsWith("/problems/job-result-expired");
            JsonNode expired = api.get(location).body();
            assertThat(expired.get("status").asText()).isEqualTo("succeeded");
            assertThat(expired.get("result_expired").asBoolean()).isTrue();
            assertThat(expired.get("result_url").isNull()).isTrue();
        }
    }
}

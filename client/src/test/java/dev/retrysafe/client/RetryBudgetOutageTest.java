package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.client.testing.FakeSleeper;
import dev.retrysafe.client.testing.ScriptedServer;
import dev.retrysafe.client.testing.ScriptedServer.Answer;
import dev.retrysafe.testkit.FakeClock;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A wide outage: 1,000 calls against a real server that fails every request. */
class RetryBudgetOutageTest {

    private static final int CALLS = 1_000;

    @Test
    void extraAttemptsStayWithinTheConfiguredShareOfCalls() throws Exception {
        FakeClock clock = new FakeClock();
        RetryBudget budget = RetryBudget.builder().retryRatio(0.1).burst(10).build();
        try (ScriptedServer server = ScriptedServer.answering(Answer.of(503));
                RetryingHttpClient client = RetryingHttpClient.builder()
                        .clock(clock)
                        .sleeper(new FakeSleeper(clock))
                        .random(new Random(1))
                        .budget(budget)
                        .build()) {
            int budgetStops = 0;
            for (int i = 0; i < CALLS; i++) {
                CallResult<Void> result = client.send(
                        HttpRequest.newBuilder(server.uri("/r")).build(), HttpResponse.BodyHandlers.discarding());
                assertThat(result.statusCode()).isEqualTo(503);
                budgetStops += result.stopReason() == StopReason.BUDGET_EXHAUSTED ? 1 : 0;
            }
            int extra = server.received().size() - CALLS;
            // at most burst + retryRatio * calls = 10 + 100; without a budget: 4 per call, 4,000
            assertThat(extra).isLessThanOrEqualTo(10 + CALLS / 10);
            assertThat(extra).as("the budget is spent, not hoarded").isGreaterThanOrEqualTo(CALLS / 10);
            assertThat(budgetStops).isGreaterThan(CALLS * 8 / 10);
        }
    }

    @Test
    void withBurstZeroTheShareIsExact() throws Exception {
        FakeClock clock = new FakeClock();
        RetryBudget budget = RetryBudget.builder().retryRatio(0.05).burst(0).build();
        try (ScriptedServer server = ScriptedServer.answering(Answer.hangUp());
                RetryingHttpClient client = RetryingHttpClient.builder()
                        .clock(clock)
                        .sleeper(new FakeSleeper(clock))
                        .budget(budget)
                        .build()) {
            int failed = 0;
            for (int i = 0; i < CALLS; i++) {
                try {
                    client.send(
                            HttpRequest.newBuilder(server.uri("/p"))
                                    .POST(HttpRequest.BodyPublishers.ofString("{}"))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding());
                } catch (RetryFailedException e) {
                    failed++;
                }
            }
            assertThat(failed).isEqualTo(CALLS);
            assertThat(server.received().size() - CALLS).isEqualTo(CALLS / 20);
        }
    }
}

package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {

    @Test
    void startsWithItsBurstAndEarnsTheRatioPerCall() {
        RetryBudget budget = RetryBudget.builder().retryRatio(0.1).burst(2).build();
        assertThat(budget.available()).isEqualTo(2.0);
        assertThat(budget.tryAcquireRetry()).isTrue();
        assertThat(budget.tryAcquireRetry()).isTrue();
        assertThat(budget.tryAcquireRetry()).isFalse();
        for (int i = 0; i < 9; i++) {
            budget.recordCall();
        }
        assertThat(budget.tryAcquireRetry()).as("0.9 of a retry").isFalse();
        budget.recordCall();
        assertThat(budget.tryAcquireRetry()).as("ten calls earn one retry").isTrue();
    }

    @Test
    void neverHoldsMoreThanItsBurst() {
        RetryBudget budget = RetryBudget.builder().retryRatio(1).burst(3).build();
        for (int i = 0; i < 100; i++) {
            budget.recordCall();
        }
        assertThat(budget.available()).isEqualTo(3.0);
    }

    @Test
    void aBurstOfZeroStartsEmptyButStillEarnsRetries() {
        RetryBudget budget = RetryBudget.builder().retryRatio(0.5).burst(0).build();
        assertThat(budget.tryAcquireRetry()).isFalse();
        budget.recordCall();
        budget.recordCall();
        assertThat(budget.tryAcquireRetry()).isTrue();
        assertThat(budget.tryAcquireRetry()).isFalse();
    }

    @Test
    void rejectsBadSettingsNamingThem() {
        assertThatThrownBy(() -> RetryBudget.builder().retryRatio(0).build())
                .hasMessage("retryRatio must be greater than 0 and at most 1, was 0.0");
        assertThatThrownBy(() -> RetryBudget.builder().retryRatio(1.5).build())
                .hasMessage("retryRatio must be greater than 0 and at most 1, was 1.5");
        assertThatThrownBy(() -> RetryBudget.builder().burst(-1).build())
                .hasMessage("burst must be 0..1000000, was -1");
    }

    @Test
    void unlimitedNeverRefuses() {
        RetryBudget budget = RetryBudget.unlimited();
        for (int i = 0; i < 1000; i++) {
            assertThat(budget.tryAcquireRetry()).isTrue();
        }
        assertThat(budget.available()).isInfinite();
    }

    @Test
    void concurrentRetriesNeverSpendMoreThanTheBucketHeld() throws Exception {
        RetryBudget budget = RetryBudget.builder().retryRatio(0.25).burst(50).build();
        int threads = 8;
        int callsPerThread = 1_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch gate = new CountDownLatch(1);
        try {
            List<Future<Integer>> granted = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                granted.add(pool.submit(() -> {
                    if (!gate.await(10, TimeUnit.SECONDS)) {
                        throw new AssertionError("the start gate never opened");
                    }
                    int n = 0;
                    for (int i = 0; i < callsPerThread; i++) {
                        budget.recordCall();
                        // every call tries two retries, as in an outage
                        n += budget.tryAcquireRetry() ? 1 : 0;
                        n += budget.tryAcquireRetry() ? 1 : 0;
                    }
                    return n;
                }));
            }
            gate.countDown();
            int total = 0;
            for (Future<Integer> f : granted) {
                total += f.get(30, TimeUnit.SECONDS);
            }
            // never more than 50 at the start + 0.25 of 8,000 calls; a little less when a deposit met
            // a full bucket at the start
            int earned = threads * callsPerThread / 4;
            assertThat(total).isBetween(earned, 50 + earned);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}

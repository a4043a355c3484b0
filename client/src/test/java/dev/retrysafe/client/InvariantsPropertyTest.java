package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.client.FakeHttpClient.Outcome;
import dev.retrysafe.client.testing.FakeSleeper;
import dev.retrysafe.testkit.FakeClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Calls with seeded random policies against a seeded random server whose attempts take fake time:
 * whatever happens, every wait is within its full-jitter bound, no {@code Retry-After} is
 * undercut, the deadline is never exceeded, a call never makes more attempts than allowed, and a
 * {@code POST} carries one key on every attempt. The seed is in every message.
 */
class InvariantsPropertyTest {

    static LongStream seeds() {
        long base = System.nanoTime();
        return LongStream.range(0, 500).map(i -> base + i);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyCallKeepsTheRules(long seed) throws Exception {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(random.nextInt(1_000_000)));
        RetryPolicy policy = randomPolicy(random);
        FakeSleeper sleeper = new FakeSleeper(clock);
        FakeHttpClient http = new FakeHttpClient(clock, request -> randomOutcome(random, clock.instant()));
        boolean post = random.nextBoolean();
        boolean async = random.nextBoolean();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:9/v1/payments"))
                .method(
                        post ? "POST" : "GET",
                        post ? HttpRequest.BodyPublishers.ofString("{}") : HttpRequest.BodyPublishers.noBody())
                .build();
        String why = "seed " + seed + " (rerun with this seed to reproduce), " + policy + (async ? ", async" : "");

        List<Attempt> attempts;
        Instant start = clock.instant();
        try (RetryingHttpClient client = RetryingHttpClient.builder()
                .httpClient(http)
                .clock(clock)
                .sleeper(sleeper)
                .random(new Random(random.nextLong()))
                .policy(policy)
                .budget(RetryBudget.unlimited())
                .build()) {
            attempts = call(client, request, async);
        }
        Duration elapsed = Duration.between(start, clock.instant());
        why += ", attempts " + attempts.stream().map(Attempt::describe).toList();

        assertThat(elapsed).as("deadline never exceeded; " + why).isLessThanOrEqualTo(policy.deadline());
        assertThat(attempts.size()).as(why).isBetween(0, policy.maxAttempts());
        assertThat(http.requests()).as(why).hasSize(attempts.size());
        Duration slept = Duration.ZERO;
        int retry = 0;
        for (Attempt a : attempts) {
            slept = slept.plus(a.pacingWait());
            if (a.decision() instanceof Decision.Retry r) {
                assertWaitWithinBounds(policy, retry, r, why + ", attempt " + a.number());
                slept = slept.plus(r.delay());
                retry++;
            }
        }
        assertThat(sleeper.total()).as(why).isEqualTo(slept);
        List<String> keys = http.requests().stream()
                .map(r -> r.headers().firstValue("Idempotency-Key").orElse(null))
                .toList();
        if (post) {
            assertThat(keys).as(why).doesNotContainNull();
            assertThat(new java.util.HashSet<>(keys)).as(why).hasSizeLessThanOrEqualTo(1);
        } else {
            assertThat(keys).as(why).containsOnlyNulls();
        }
        for (HttpRequest sent : http.requests()) {
            assertThat(sent.timeout()).as(why).isPresent();
        }
    }

    private static void assertWaitWithinBounds(RetryPolicy policy, int retry, Decision.Retry r, String why) {
        Duration bound = policy.backoffBound(retry);
        if (r.reason() instanceof RetryReason.Status s && s.retryAfter() != null) {
            Duration floor = s.retryAfter();
            long spread = Math.min(policy.maxDelay().toNanos(), Math.max(bound.toNanos(), (long)
                    (policy.retryAfterSpread() * floor.toNanos())));
            assertThat(r.delay()).as("Retry-After never undercut; " + why).isGreaterThanOrEqualTo(floor);
            assertThat(r.delay()).as(why).isLessThanOrEqualTo(floor.plusNanos(spread));
            assertThat(floor)
                    .as("a wait beyond maxRetryAfter fails instead; " + why)
                    .isLessThanOrEqualTo(policy.maxRetryAfter());
        } else {
            assertThat(r.delay())
                    .as("full jitter of retry " + retry + "; " + why)
                    .isBetween(Duration.ZERO, bound);
        }
    }

    private static List<Attempt> call(RetryingHttpClient client, HttpRequest request, boolean async)
            throws IOException, InterruptedException {
        try {
            CallResult<String> result = async
                    ? client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                            .get(10, TimeUnit.SECONDS)
                    : client.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(result.attempts().getLast().decision()).isInstanceOf(Decision.Stop.class);
            return result.attempts();
        } catch (RetryFailedException e) {
            return e.attempts();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RetryFailedException f) {
                return f.attempts();
            }
            throw new AssertionError(e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("an async call without I/O did not finish", e);
        }
    }

    private static RetryPolicy randomPolicy(Random random) {
        Duration base = Duration.ofMillis(1 + random.nextInt(500));
        return RetryPolicy.builder()
                .maxAttempts(1 + random.nextInt(10))
                .baseDelay(base)
                .maxDelay(base.plusMillis(random.nextInt(10_000)))
                .deadline(Duration.ofMillis(50 + random.nextInt(60_000)))
                .maxRetryAfter(Duration.ofMillis(random.nextInt(30_000)))
                .retryAfterSpread(random.nextInt(4) == 0 ? 0 : random.nextDouble(3))
                .attemptTimeout(random.nextBoolean() ? null : Duration.ofMillis(10 + random.nextInt(5_000)))
                .build();
    }

    private static Outcome randomOutcome(Random random, Instant now) {
        Duration latency = Duration.ofMillis(random.nextInt(random.nextInt(10) == 0 ? 40_000 : 2_000));
        Map<String, List<String>> headers = new HashMap<>();
        if (random.nextInt(8) == 0) {
            headers.put("RateLimit", List.of("\"default\";r=" + random.nextInt(2) + ";t=" + random.nextInt(40)));
        }
        int dice = random.nextInt(100);
        if (dice < 10) {
            return Outcome.failure(latency, new IOException("Connection reset"));
        }
        if (dice < 15) {
            return Outcome.answer(latency, 200, headers);
        }
        if (dice < 20) {
            return Outcome.answer(latency, 400, headers);
        }
        int status = switch (dice % 5) {
            case 0 -> 500;
            case 1 -> 429;
            case 2 -> 409;
            default -> 503;
        };
        String retryAfter = randomRetryAfter(random, now);
        if (retryAfter != null) {
            headers.put("Retry-After", List.of(retryAfter));
        }
        return Outcome.answer(latency, status, headers);
    }

    private static @Nullable String randomRetryAfter(Random random, Instant now) {
        return switch (random.nextInt(8)) {
            case 0 -> null;
            case 1 -> Integer.toString(random.nextInt(3));
            case 2 -> Integer.toString(random.nextInt(45));
            case 3 ->
                DateTimeFormatter.RFC_1123_DATE_TIME.format(
                        now.plusSeconds(random.nextInt(50) - 10).atOffset(ZoneOffset.UTC));
            case 4 -> "-" + random.nextInt(10);
            case 5 -> "soon";
            case 6 -> "99999999999999999999";
            default -> Integer.toString(random.nextInt(10));
        };
    }
}

package dev.retrysafe.client.internal;

import dev.retrysafe.client.AttemptListener;
import dev.retrysafe.client.RetryBudget;
import dev.retrysafe.client.RetryPolicy;
import dev.retrysafe.client.Sleeper;
import java.net.http.HttpClient;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * A retrying client's settings, checked once. Immutable (the listeners are copied).
 *
 * @param http sends each attempt
 * @param ownsHttp whether closing the client closes {@code http}
 * @param policy the default policy
 * @param budget the retry budget
 * @param clock measures deadlines
 * @param sleeper waits
 * @param random jitter
 * @param listeners told about every attempt
 * @param idempotencyKeys generates keys
 */
public record ClientConfig(
        HttpClient http,
        boolean ownsHttp,
        RetryPolicy policy,
        RetryBudget budget,
        Clock clock,
        Sleeper sleeper,
        RandomGenerator random,
        List<AttemptListener> listeners,
        Supplier<String> idempotencyKeys) {

    /** Checks and copies. */
    public ClientConfig {
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(random, "random");
        listeners = List.copyOf(listeners);
        Objects.requireNonNull(idempotencyKeys, "idempotencyKeys");
    }
}

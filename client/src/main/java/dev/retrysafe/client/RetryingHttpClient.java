package dev.retrysafe.client;

import dev.retrysafe.client.internal.ClientConfig;
import dev.retrysafe.client.internal.DefaultRetryingClient;
import dev.retrysafe.client.internal.MonotonicClock;
import dev.retrysafe.client.internal.ThreadLocalRandomSource;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * An {@link HttpClient} that retries what is safe to retry, the way a {@link RetryPolicy} says:
 * idempotent methods, and {@code POST}/{@code PATCH} with an {@code Idempotency-Key} it generates
 * once per call; transient failures and retryable statuses; full-jitter backoff that never undercuts
 * {@code Retry-After}; a {@link RetryBudget} per client; pacing after an exhausted rate limit; an
 * overall deadline. Every attempt goes to the {@link AttemptListener}s and into the
 * {@link CallResult}.
 *
 * <p>Request bodies must be replayable ({@code BodyPublishers.ofString}, {@code ofByteArray},
 * {@code ofFile}...), since each attempt sends the body again. The body of an answer that is retried
 * is dropped (closed when it is {@link AutoCloseable}, such as an {@code InputStream}).
 *
 * <p>Implementations are threadsafe: share one client (and with it one budget and one pacing state) per
 * downstream service.
 *
 * <pre>{@code
 * try (RetryingHttpClient client = RetryingHttpClient.builder().build()) {
 *     CallResult<String> result = client.send(
 *             HttpRequest.newBuilder(URI.create("https://api.example.com/v1/payments"))
 *                     .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
 *             HttpResponse.BodyHandlers.ofString());
 *     result.statusCode();      // the final answer
 *     result.attemptCount();    // how many attempts it took
 *     result.retryReasons();    // why each retry happened
 * }
 * }</pre>
 */
public interface RetryingHttpClient extends AutoCloseable {

    /**
     * Sends {@code request} under the client's policy, retrying as the policy allows, and blocks
     * until the final answer.
     *
     * @param request the request (its {@code Idempotency-Key}, if any, is kept)
     * @param handler how to read each answer's body
     * @param <T> the body type
     * @return the final answer and every attempt
     * @throws WaitTooLongException if the server asked for a wait beyond the policy's limits
     * @throws RetryFailedException if the last attempt failed without an answer (the failure is its cause)
     * @throws InterruptedException if interrupted while sending or waiting
     */
    <T> CallResult<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException;

    /**
     * Like {@link #send(HttpRequest, HttpResponse.BodyHandler)}, under {@code policy} instead of
     * the client's (for one request that needs a tighter deadline, say).
     *
     * @param request the request
     * @param handler how to read each answer's body
     * @param policy the policy of this call
     * @param <T> the body type
     * @return the final answer and every attempt
     * @throws IOException see {@link #send(HttpRequest, HttpResponse.BodyHandler)}
     * @throws InterruptedException if interrupted while sending or waiting
     */
    <T> CallResult<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, RetryPolicy policy)
            throws IOException, InterruptedException;

    /**
     * Sends {@code request} without blocking: attempts run on the {@link HttpClient}'s executor,
     * waits on the {@link Sleeper}'s {@link Sleeper#delay}. The future fails with the exceptions
     * {@link #send(HttpRequest, HttpResponse.BodyHandler)} throws. Cancelling it stops the retries
     * and cancels the attempt in flight.
     *
     * @param request the request
     * @param handler how to read each answer's body
     * @param <T> the body type
     * @return the final answer and every attempt, when they come
     */
    <T> CompletableFuture<CallResult<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler);

    /**
     * Like {@link #sendAsync(HttpRequest, HttpResponse.BodyHandler)}, under {@code policy}.
     *
     * @param request the request
     * @param handler how to read each answer's body
     * @param policy the policy of this call
     * @param <T> the body type
     * @return the final answer and every attempt, when they come
     */
    <T> CompletableFuture<CallResult<T>> sendAsync(
            HttpRequest request, HttpResponse.BodyHandler<T> handler, RetryPolicy policy);

    /** The policy calls use unless given another. */
    RetryPolicy policy();

    /** The client's retry budget, shared by all its calls. */
    RetryBudget budget();

    /** The clock deadlines and {@code Retry-After} dates are measured with. */
    Clock clock();

    /** The sleeper the client waits with. */
    Sleeper sleeper();

    /** Closes the {@link HttpClient} if the builder created it; one passed in is left to its owner. */
    @Override
    void close();

    /** A builder with the defaults: a new {@link HttpClient}, {@link RetryPolicy#defaults()}, {@link RetryBudget#defaults()}. */
    static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link RetryingHttpClient}. Not threadsafe; the client is. */
    final class Builder {
        private @Nullable HttpClient httpClient;
        private RetryPolicy policy = RetryPolicy.defaults();
        private @Nullable RetryBudget budget;
        private Clock clock = new MonotonicClock();
        private Sleeper sleeper = Sleeper.system();
        private RandomGenerator random = ThreadLocalRandomSource.INSTANCE;
        private final List<AttemptListener> listeners = new ArrayList<>();
        private Supplier<String> idempotencyKeys = () -> UUID.randomUUID().toString();

        private Builder() {}

        /** The client that sends each attempt (default: a new one, HTTP/1.1 and HTTP/2, closed with this client). */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
            return this;
        }

        /** The policy of calls that do not bring their own (default {@link RetryPolicy#defaults()}). */
        public Builder policy(RetryPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * The retry budget (default: a new {@link RetryBudget#defaults()} for this client;
         * {@link RetryBudget#unlimited()} turns it off).
         */
        public Builder budget(RetryBudget budget) {
            this.budget = Objects.requireNonNull(budget, "budget");
            return this;
        }

        /**
         * The clock (default: monotonic, starting at the wall time). Deadlines are measured with
         * it and {@code Retry-After} dates and epoch resets compared with it.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How the client waits (default {@link Sleeper#system()}). */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /**
         * The source of jitter (default: {@link java.util.concurrent.ThreadLocalRandom}). A seeded
         * one makes the waits reproducible; it must be threadsafe if the client is shared
         * ({@link java.util.Random} is).
         */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /** Adds a listener told about every attempt. */
        public Builder listener(AttemptListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** Where generated {@code Idempotency-Key}s come from (default: random UUIDs). */
        public Builder idempotencyKeys(Supplier<String> idempotencyKeys) {
            this.idempotencyKeys = Objects.requireNonNull(idempotencyKeys, "idempotencyKeys");
            return this;
        }

        /** The client. */
        public RetryingHttpClient build() {
            boolean owns = httpClient == null;
            HttpClient http = owns ? HttpClient.newHttpClient() : httpClient;
            return new DefaultRetryingClient(new ClientConfig(
                    http,
                    owns,
                    policy,
                    budget != null ? budget : RetryBudget.defaults(),
                    clock,
                    sleeper,
                    random,
                    listeners,
                    idempotencyKeys));
        }
    }
}

package dev.retrysafe.client.internal;

import dev.retrysafe.client.Attempt;
import dev.retrysafe.client.AttemptListener;
import dev.retrysafe.client.CallResult;
import dev.retrysafe.client.Decision;
import dev.retrysafe.client.RetryBudget;
import dev.retrysafe.client.RetryPolicy;
import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.client.Sleeper;
import dev.retrysafe.client.StopReason;
import dev.retrysafe.client.WaitTooLongException;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RetryingHttpClient}: a synchronous and an asynchronous loop around the same
 * {@link Execution}. This class is threadsafe; each call has its own execution, the budget and the
 * pacer are shared.
 */
public final class DefaultRetryingClient implements RetryingHttpClient {

    private static final System.Logger LOG = System.getLogger(RetryingHttpClient.class.getName());

    private final ClientConfig config;
    private final Pacer pacer = new Pacer();

    /** A client with {@code config}. */
    public DefaultRetryingClient(ClientConfig config) {
        this.config = config;
    }

    @Override
    public <T> CallResult<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        return send(request, handler, config.policy());
    }

    @Override
    public <T> CallResult<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, RetryPolicy policy)
            throws IOException, InterruptedException {
        Objects.requireNonNull(handler, "handler");
        Execution execution = newExecution(request, policy);
        while (true) {
            config.sleeper().sleep(execution.pacingWait());
            HttpResponse<T> response;
            try {
                response = config.http().send(execution.nextRequest(), handler);
            } catch (IOException e) {
                Decision decision = execution.onFailure(e);
                notifyListeners(execution.lastAttempt());
                if (decision instanceof Decision.Retry retry) {
                    config.sleeper().sleep(retry.delay());
                    continue;
                }
                throw execution.failure(e);
            }
            Decision decision = execution.onAnswer(response);
            notifyListeners(execution.lastAttempt());
            switch (decision) {
                case Decision.Retry retry -> {
                    discard(response);
                    config.sleeper().sleep(retry.delay());
                }
                case Decision.Stop stop -> {
                    if (stop.reason() == StopReason.WAIT_TOO_LONG) {
                        discard(response);
                        throw execution.refusal();
                    }
                    return execution.result(response);
                }
            }
        }
    }

    @Override
    public <T> CompletableFuture<CallResult<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return sendAsync(request, handler, config.policy());
    }

    @Override
    public <T> CompletableFuture<CallResult<T>> sendAsync(
            HttpRequest request, HttpResponse.BodyHandler<T> handler, RetryPolicy policy) {
        Objects.requireNonNull(handler, "handler");
        Execution execution;
        try {
            execution = newExecution(request, policy);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<CallResult<T>> result = new CompletableFuture<>();
        new AsyncCall<>(execution, handler, result).next();
        return result;
    }

    private Execution newExecution(HttpRequest request, RetryPolicy policy) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(policy, "policy");
        return new Execution(
                request, policy, config.budget(), pacer, config.clock(), config.random(), config.idempotencyKeys());
    }

    /** One asynchronous call: each step runs when the previous one's future completes. */
    private final class AsyncCall<T> {
        private final Execution execution;
        private final HttpResponse.BodyHandler<T> handler;
        private final CompletableFuture<CallResult<T>> result;

        AsyncCall(Execution execution, HttpResponse.BodyHandler<T> handler, CompletableFuture<CallResult<T>> result) {
            this.execution = execution;
            this.handler = handler;
            this.result = result;
        }

        void next() {
            if (result.isDone()) {
                return; // cancelled by the caller
            }
            Duration pacing;
            try {
                pacing = execution.pacingWait();
            } catch (WaitTooLongException e) {
                result.completeExceptionally(e);
                return;
            }
            config.sleeper().delay(pacing).whenComplete((ignored, delayFailure) -> {
                if (delayFailure != null) {
                    result.completeExceptionally(unwrap(delayFailure));
                } else if (!result.isDone()) {
                    send();
                }
            });
        }

        private void send() {
            CompletableFuture<HttpResponse<T>> inFlight;
            try {
                inFlight = config.http().sendAsync(execution.nextRequest(), handler);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return;
            }
            result.whenComplete((r, t) -> {
                if (result.isCancelled()) {
                    inFlight.cancel(true);
                }
            });
            inFlight.whenComplete(this::after);
        }

        private void after(@Nullable HttpResponse<T> response, @Nullable Throwable error) {
            try {
                if (response == null) {
                    Throwable cause = unwrap(Objects.requireNonNull(error, "error"));
                    if (!(cause instanceof IOException failure)) {
                        result.completeExceptionally(cause);
                        return;
                    }
                    Decision decision = execution.onFailure(failure);
                    notifyListeners(execution.lastAttempt());
                    if (decision instanceof Decision.Retry retry) {
                        waitThenNext(retry.delay());
                    } else {
                        result.completeExceptionally(execution.failure(failure));
                    }
                    return;
                }
                Decision decision = execution.onAnswer(response);
                notifyListeners(execution.lastAttempt());
                switch (decision) {
                    case Decision.Retry retry -> {
                        discard(response);
                        waitThenNext(retry.delay());
                    }
                    case Decision.Stop stop -> {
                        if (stop.reason() == StopReason.WAIT_TOO_LONG) {
                            discard(response);
                            result.completeExceptionally(execution.refusal());
                        } else {
                            result.complete(execution.result(response));
                        }
                    }
                }
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }

        private void waitThenNext(Duration wait) {
            config.sleeper().delay(wait).whenComplete((ignored, delayFailure) -> {
                if (delayFailure != null) {
                    result.completeExceptionally(unwrap(delayFailure));
                } else {
                    next();
                }
            });
        }
    }

    private void notifyListeners(Attempt attempt) {
        for (AttemptListener listener : config.listeners()) {
            try {
                listener.onAttempt(attempt);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "attempt listener " + listener + " failed; ignored", e);
            }
        }
    }

    /** Releases the connection of an answer that is not handed to the caller. */
    private static void discard(HttpResponse<?> response) {
        if (response.body() instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.DEBUG, "closing a discarded answer's body failed", e);
            }
        }
    }

    private static Throwable unwrap(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    @Override
    public RetryPolicy policy() {
        return config.policy();
    }

    @Override
    public RetryBudget budget() {
        return config.budget();
    }

    @Override
    public Clock clock() {
        return config.clock();
    }

    @Override
    public Sleeper sleeper() {
        return config.sleeper();
    }

    @Override
    public void close() {
        if (config.ownsHttp()) {
            config.http().close();
        }
    }

    @Override
    public String toString() {
        return "RetryingHttpClient[" + config.policy() + ", " + config.budget() + "]";
    }
}

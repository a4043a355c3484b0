package dev.retrysafe.server.cli;

import dev.retrysafe.client.Attempt;
import dev.retrysafe.client.AttemptListener;
import dev.retrysafe.client.Decision;
import dev.retrysafe.client.RetryPolicy;
import dev.retrysafe.client.RetryReason;
import dev.retrysafe.client.StopReason;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * Prints each attempt of the demos as one line, like the seed's transcripts: status or failure,
 * {@code Retry-After}, the wait and why it is that long. Threadsafe (one line per attempt).
 */
final class AttemptPrinter implements AttemptListener {

    private final PrintStream out;
    private final RetryPolicy policy;
    private int retries;

    AttemptPrinter(PrintStream out, RetryPolicy policy) {
        this.out = out;
        this.policy = policy;
    }

    @Override
    public synchronized void onAttempt(Attempt a) {
        if (a.number() == 1) {
            retries = 0;
        }
        StringBuilder line = new StringBuilder("attempt ").append(a.number()).append(": ");
        if (a.pacingWait().isPositive()) {
            line.append("(after waiting ").append(a.pacingWait().toMillis()).append("ms for the rate limit to reset) ");
        }
        IOException failure = a.failure();
        if (failure != null) {
            line.append(failure instanceof HttpTimeoutException ? "no answer within the timeout" : "failed")
                    .append(" (")
                    .append(failure.getClass().getSimpleName())
                    .append(')');
        } else {
            int status = a.status().getAsInt();
            line.append(status)
                    .append(status == 409 ? " (key in use: the first attempt is still running)" : "")
                    .append(", Retry-After=")
                    .append(a.retryAfter() == null ? "-" : a.retryAfter());
        }
        switch (a.decision()) {
            case Decision.Retry r -> {
                line.append(", waiting ")
                        .append(r.delay().toMillis())
                        .append("ms (")
                        .append(why(r))
                        .append(')');
                retries++;
            }
            case Decision.Stop s -> {
                if (s.reason() != StopReason.ANSWERED || a.status().orElse(200) >= 400) {
                    line.append(", not retried: ").append(explain(s.reason(), a));
                }
            }
        }
        out.println(line);
    }

    private String why(Decision.Retry r) {
        if (r.reason() instanceof RetryReason.Status s
                && s.retryAfter() != null
                && s.retryAfter().isPositive()) {
            return "never sooner than Retry-After " + s.retryAfter().toMillis() + "ms, plus random spread";
        }
        Duration bound = policy.backoffBound(retries);
        return "full jitter, random within 0.." + bound.toMillis() + "ms";
    }

    private static String explain(StopReason reason, Attempt a) {
        return switch (reason) {
            case ANSWERED -> a.status().getAsInt() + " is not retryable: it would fail the same way again";
            case NOT_TRANSIENT -> "the failure would repeat";
            case UNSAFE_METHOD -> "not safe to repeat without an Idempotency-Key";
            case ATTEMPTS_EXHAUSTED -> "no attempts left";
            case BUDGET_EXHAUSTED -> "the retry budget is spent";
            case DEADLINE_REACHED -> "the next wait would pass the deadline";
            case WAIT_TOO_LONG -> "the server asked for a longer wait than allowed";
        };
    }
}

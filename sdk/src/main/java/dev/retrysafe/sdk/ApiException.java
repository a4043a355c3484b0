package dev.retrysafe.sdk;

import dev.retrysafe.client.Attempt;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The Retrysafe API answered with an error: a {@code 4xx}, or a {@code 5xx} that was still there
 * when the retries were used up. {@link #problem()} holds the problem details the API sent. An
 * {@link IOException}, so that one {@code catch} handles every way a call can fail.
 */
public final class ApiException extends IOException {

    private final int status;
    private final @Nullable Problem problem;
    private final transient List<Attempt> attempts;

    /**
     * An error answer.
     *
     * @param method the request method
     * @param path the request path
     * @param status the status
     * @param problem the problem details, or {@code null} when the body was not one
     * @param attempts every attempt of the call, oldest first
     */
    public ApiException(String method, String path, int status, @Nullable Problem problem, List<Attempt> attempts) {
        super(method + " " + path + " answered " + status
                + (problem == null
                        ? ""
                        : ": " + problem.title() + (problem.detail() == null ? "" : " (" + problem.detail() + ")"))
                + (attempts.size() > 1 ? " after " + attempts.size() + " attempts" : ""));
        this.status = status;
        this.problem = problem;
        this.attempts = List.copyOf(Objects.requireNonNull(attempts, "attempts"));
    }

    /** The status of the answer. */
    public int status() {
        return status;
    }

    /** The problem details, or {@code null} when the answer's body was not one. */
    public @Nullable Problem problem() {
        return problem;
    }

    /** The problem type, such as {@code /problems/idempotency-key-reused}, or {@code null}. */
    public @Nullable String problemType() {
        return problem == null ? null : problem.type();
    }

    /** Every attempt of the call, oldest first. */
    public List<Attempt> attempts() {
        return attempts;
    }
}

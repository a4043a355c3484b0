package dev.retrysafe.spring;

import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A request a {@link RateLimited} method's policies refused: {@code 429} (or {@code 503} when a
 * fail-closed policy's counters cannot be reached), raised inside Spring MVC so that the
 * application's {@code @ExceptionHandler}s, {@code @ControllerAdvice}s (a
 * {@code ResponseEntityExceptionHandler} included) and message-source customisation of
 * {@link ProblemDetail} apply to it. Without any, the starter answers it as
 * {@code application/problem+json}.
 *
 * <p>The {@linkplain #getBody() body} carries the members of the Retrysafe server's problem:
 * {@code type}, {@code title}, {@code status}, {@code detail} and the properties
 * {@code retryable}, {@code policy} (429 only) and {@code retry_after}; the
 * {@linkplain #getHeaders() headers} are {@code Retry-After} and the budget headers
 * ({@code RateLimit-Policy}, {@code RateLimit}, {@code X-RateLimit-*}), which are also on the
 * response already. The detail message arguments ({@code {0}} the policy, {@code {1}} the wait in
 * seconds) serve a {@code problemDetail.dev.retrysafe.spring.RetrysafeRateLimitedException}
 * message. Not threadsafe, as exceptions are not; made once per refused request.
 */
public final class RetrysafeRateLimitedException extends ErrorResponseException {

    private static final long serialVersionUID = 1L;

    private final String policy;
    private final long retryAfterSeconds;

    /**
     * A refusal with {@code body} (whose status is the answer's) and {@code headers}.
     *
     * @param policy            the policy that refused, or the fail-closed one that could not be checked
     * @param retryAfterSeconds the {@code Retry-After}, at least 1
     */
    public RetrysafeRateLimitedException(
            ProblemDetail body, HttpHeaders headers, String policy, long retryAfterSeconds) {
        super(HttpStatusCode.valueOf(body.getStatus()), body, null, null, new Object[] {policy, retryAfterSeconds});
        if (retryAfterSeconds < 1) {
            throw new IllegalArgumentException("retryAfterSeconds must be at least 1: " + retryAfterSeconds);
        }
        getHeaders().putAll(headers);
        this.policy = policy;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /**
     * The problem the Retrysafe server answers, as a {@link ProblemDetail}: {@code members} follow
     * {@code retryable} in their order.
     */
    public static ProblemDetail problem(
            int status, URI type, String title, String detail, boolean retryable, Map<String, Object> members) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(status), detail);
        problem.setType(type);
        problem.setTitle(title);
        problem.setProperty("retryable", retryable);
        members.forEach(problem::setProperty);
        return problem;
    }

    /** The policy that refused (429), or the fail-closed policy that could not be checked (503). */
    public String policy() {
        return policy;
    }

    /** How long the client should wait, in whole seconds: the {@code Retry-After}. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}

package dev.retrysafe.spring.internal;

import dev.retrysafe.ratelimit.HeaderField;
import dev.retrysafe.servlet.RateLimitRefusal;
import dev.retrysafe.spring.RetrysafeRateLimitedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * How a rate-limit refusal reaches Spring MVC. The decision is made in Retrysafe's filter, before
 * the body is read and before the idempotency step, so that a replay or a {@code 409} can be given
 * its charge back; a refusal is not written there but left on the request as a
 * {@link RetrysafeRateLimitedException} ({@link #WRITER}), and the filter passes the request on to
 * the {@code DispatcherServlet}, where {@link #INTERCEPTOR} throws it before the handler method
 * runs. The {@code DispatcherServlet}'s exception resolvers then answer it: the controller's and
 * the application's {@code @ExceptionHandler}s first, the starter's {@link RateLimitProblems} last.
 * Stateless and threadsafe.
 */
public final class MvcRefusals {

    private static final String ATTRIBUTE = MvcRefusals.class.getName() + ".refused";

    /** Leaves the refusal on the request instead of answering it. */
    public static final RateLimitRefusal.Writer WRITER =
            (request, response, refusal) -> request.setAttribute(ATTRIBUTE, exception(refusal));

    /** Throws a request's refusal before its handler method runs; lets every other request through. */
    public static final HandlerInterceptor INTERCEPTOR = new HandlerInterceptor() {
        @Override
        public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
            if (request.getAttribute(ATTRIBUTE) instanceof RetrysafeRateLimitedException refused) {
                request.removeAttribute(ATTRIBUTE);
                throw refused;
            }
            return true;
        }
    };

    private MvcRefusals() {}

    /** The refusal the rate limit left on {@code request}, if it refused it. */
    public static @Nullable RetrysafeRateLimitedException refusal(HttpServletRequest request) {
        return request.getAttribute(ATTRIBUTE) instanceof RetrysafeRateLimitedException refused ? refused : null;
    }

    static RetrysafeRateLimitedException exception(RateLimitRefusal refusal) {
        HttpHeaders headers = new HttpHeaders();
        for (HeaderField field : refusal.headers()) {
            headers.set(field.name(), field.value());
        }
        return new RetrysafeRateLimitedException(
                RetrysafeRateLimitedException.problem(
                        refusal.type().status(),
                        URI.create(refusal.typeUri()),
                        refusal.type().title(),
                        refusal.detail(),
                        refusal.type().retryable(),
                        refusal.members()),
                headers,
                refusal.policy(),
                refusal.retryAfterSeconds());
    }
}

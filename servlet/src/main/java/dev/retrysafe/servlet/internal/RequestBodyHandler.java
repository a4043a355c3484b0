package dev.retrysafe.servlet.internal;

import dev.retrysafe.servlet.ProblemType;
import dev.retrysafe.servlet.ReadDeadlines;
import dev.retrysafe.servlet.RequestBodyFilter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The body's step of a request: refuse what is declared too large or arrives while memory is
 * spoken for, read the rest within its deadline, then go on with the body in memory. Threadsafe.
 */
public final class RequestBodyHandler {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.servlet");

    private final BodySettings settings;
    private final BufferBudget budget;

    /** A handler with {@code settings}. */
    public RequestBodyHandler(BodySettings settings) {
        this.settings = settings;
        this.budget = new BufferBudget(settings.maxBufferedBytes());
    }

    /** The bytes all bodies in flight hold now. */
    public long bufferedBytes() {
        return budget.used();
    }

    /** What runs once the body is in memory. */
    @FunctionalInterface
    public interface Next {
        /**
         * Goes on with {@code request}, which reads its body from memory, and {@code body}, the
         * bytes read; {@code body} is {@code null} for a request without one.
         */
        void run(HttpServletRequest request, byte @Nullable [] body) throws IOException, ServletException;
    }

    /**
     * Reads the body of {@code request} within its bounds, then runs {@code next} with it; the
     * memory it holds is given back when {@code next} returns. A body refused (too large, too
     * slow, memory spoken for, the client gone) is answered, and {@code next} never runs.
     */
    public void read(HttpServletRequest request, HttpServletResponse response, Next next)
            throws IOException, ServletException {
        long start = settings.nanoTime().getAsLong();
        long declared = request.getContentLengthLong();
        if (declared == 0 || (declared < 0 && request.getHeader("Transfer-Encoding") == null)) {
            next.run(request, null);
            return;
        }
        if (declared > settings.maxBodyBytes()) {
            settings.listener().refused(RequestBodyFilter.Refusal.TOO_LARGE);
            refuse(response, ProblemType.REQUEST_TOO_LARGE, tooLarge());
            return;
        }
        if (budget.exhausted()) {
            busy(response);
            return;
        }
        BodyReader reader = new BodyReader(settings, budget);
        try {
            BodyReader.Outcome outcome;
            try (ReadDeadlines.Deadline deadline = settings.deadlines().open(request)) {
                outcome = reader.read(request.getInputStream(), deadline, start);
            }
            switch (outcome) {
                case BodyReader.Read read -> next.run(new CachedBodyRequest(request, read.body()), read.body());
                case BodyReader.TooLarge tooLarge -> {
                    settings.listener().refused(RequestBodyFilter.Refusal.TOO_LARGE);
                    refuse(response, ProblemType.REQUEST_TOO_LARGE, tooLarge());
                }
                case BodyReader.Busy busy -> busy(response);
                case BodyReader.TimedOut timedOut -> {
                    settings.listener().refused(RequestBodyFilter.Refusal.TIMED_OUT);
                    LOG.log(
                            Level.DEBUG,
                            () -> request.getMethod() + " " + request.getRequestURI() + ": body too slow, "
                                    + timedOut.received() + " bytes in "
                                    + Duration.ofNanos(settings.nanoTime().getAsLong() - start));
                    refuse(
                            response,
                            ProblemType.BODY_TIMEOUT,
                            "The request body did not arrive in time: it must arrive"
                                    + " within " + seconds(settings.timeoutNanos()) + rateRule()
                                    + "; " + timedOut.received() + " bytes came. Nothing was done.");
                }
                case BodyReader.Broken broken -> {
                    // a client gone mid-body is the client's business, not our fault: one quiet
                    // line, no stack trace, counted; the answer reaches it if it is still there
                    settings.listener().refused(RequestBodyFilter.Refusal.CLIENT_GONE);
                    LOG.log(
                            Level.DEBUG,
                            () -> request.getMethod() + " " + request.getRequestURI()
                                    + ": body unreadable, the client left or broke the framing: " + broken.cause());
                    quietly(
                            response,
                            ProblemType.BODY_UNREADABLE,
                            "The request body could not be read to its end (the connection ended or its framing"
                                    + " is broken). Nothing was done.");
                }
            }
        } finally {
            budget.giveBack(reader.taken());
        }
    }

    private String tooLarge() {
        return "the request body is larger than " + settings.maxBodyBytes() + " bytes";
    }

    private String rateRule() {
        return settings.minRate() == 0
                ? ""
                : " and, after the first " + seconds(settings.graceNanos()) + ", at " + settings.minRate()
                        + " bytes per second or more";
    }

    private static String seconds(long nanos) {
        Duration d = Duration.ofNanos(nanos);
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private void busy(HttpServletResponse response) throws IOException {
        settings.listener().refused(RequestBodyFilter.Refusal.BUSY);
        response.setHeader("Retry-After", "1");
        refuse(
                response,
                ProblemType.SERVER_BUSY,
                "The server is reading as many request bodies as it holds in memory; nothing was done. Retry after"
                        + " Retry-After seconds.");
    }

    /**
     * Answers and closes the connection: what is left of the body is never read, so the
     * connection cannot carry another request.
     */
    private void refuse(HttpServletResponse response, ProblemType type, String detail) throws IOException {
        byte[] body = ProblemJson.render(type, settings.problemTypeBase(), detail, Map.of());
        response.setStatus(type.status());
        response.setHeader("Connection", "close");
        response.setContentType(ProblemJson.MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** {@link #refuse}, to a client that may be gone: a failed write is expected, not an error. */
    private void quietly(HttpServletResponse response, ProblemType type, String detail) {
        try {
            refuse(response, type, detail);
            response.flushBuffer();
        } catch (IOException | IllegalStateException gone) {
            LOG.log(Level.TRACE, "the answer could not be written either", gone);
        }
    }
}

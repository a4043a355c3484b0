package dev.retrysafe.servlet;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.servlet.internal.BodySettings;
import dev.retrysafe.servlet.internal.Handoff;
import dev.retrysafe.servlet.internal.HttpOnly;
import dev.retrysafe.servlet.internal.RequestBodyHandler;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Reads every request body into memory before the application sees it, so that a client costs
 * memory and a thread only for the bytes it has sent, within bounds it cannot move. This class is
 * threadsafe.
 *
 * <ul>
 *   <li>A declared {@code Content-Length} over {@code maxBodyBytes} answers {@code 413} at once,
 *       without reading a byte, and closes the connection; a body without a length (chunked)
 *       answers the same as soon as it proves too long.</li>
 *   <li>The buffer grows with the bytes that arrive, never from the declared length.</li>
 *   <li>The whole body must arrive within {@code bodyTimeout} of the headers and, after the first
 *       {@code minBodyRateGrace}, average at least {@code minBodyRate} bytes per second; otherwise
 *       {@code 408} {@link ProblemType#BODY_TIMEOUT}, and the connection is closed. A blocked read
 *       is ended at its deadline by the container's {@link ReadDeadlines}.</li>
 *   <li>All bodies being read or held at once take at most {@code maxBufferedBytes}; past it new
 *       bodies answer {@code 503} {@link ProblemType#SERVER_BUSY} with {@code Retry-After}.</li>
 *   <li>A client that leaves mid-body (or breaks the chunked framing) gets {@code 400}
 *       {@link ProblemType#BODY_UNREADABLE} if it still listens; it is logged once at
 *       {@code DEBUG}, without a stack trace, and reported to the {@link Listener}.</li>
 * </ul>
 *
 * <p>The application then reads the body from memory, as often as it likes; an
 * {@link IdempotencyFilter} behind this filter fingerprints those bytes instead of reading them
 * again. Put this filter after authentication and rate limits (so that a request is
 * charged before it can cost anything) and before the filters and servlets that read bodies.
 *
 * <pre>{@code
 * RequestBodyFilter filter = RequestBodyFilter.builder()
 *         .maxBodyBytes(1024 * 1024)
 *         .bodyTimeout(Duration.ofSeconds(30))
 *         .minBodyRate(1024)
 *         .maxBufferedBytes(64L * 1024 * 1024)
 *         .readDeadlines(jettyReadDeadlines)
 *         .build();
 * }</pre>
 */
public final class RequestBodyFilter implements Filter {

    /** Why a body was refused, as told to the {@link Listener}. */
    public enum Refusal {
        /** Declared or found over {@code maxBodyBytes}: {@code 413}. */
        TOO_LARGE,
        /** Over its deadline or under the minimum rate: {@code 408}. */
        TIMED_OUT,
        /** The client left mid-body, or broke the framing. */
        CLIENT_GONE,
        /** Memory for bodies was spoken for: {@code 503}. */
        BUSY
    }

    /** Told of every refused body, e.g. to count them in a meter. Implementations are threadsafe and quick. */
    @FunctionalInterface
    public interface Listener {
        /** A body was refused for {@code reason}. */
        void refused(Refusal reason);
    }

    private final RequestBodyHandler handler;

    private RequestBodyFilter(BodySettings settings) {
        this.handler = new RequestBodyHandler(settings);
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** This filter's step, for {@link RequestDecisions}. */
    RequestBodyHandler handler() {
        return handler;
    }

    /** The bytes the bodies in flight hold now (at most {@code maxBufferedBytes}). */
    public long bufferedBytes() {
        return handler.bufferedBytes();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpOnly.filter(
                request,
                response,
                chain,
                (httpRequest, httpResponse, next) -> handler.read(httpRequest, httpResponse, (withBody, body) -> {
                    if (body != null) {
                        Handoff.bodyRead(httpRequest, body);
                    }
                    next.doFilter(withBody, httpResponse);
                }));
    }

    /** Builds a {@link RequestBodyFilter}. Not threadsafe; the built filter is immutable. */
    public static final class Builder {
        private int maxBodyBytes = 1024 * 1024;
        private Duration bodyTimeout = Duration.ofSeconds(30);
        private long minBodyRate = 1024;
        private Duration minBodyRateGrace = Duration.ofSeconds(5);
        private long maxBufferedBytes = 64L * 1024 * 1024;
        private ReadDeadlines readDeadlines = ReadDeadlines.NONE;
        private Listener listener = reason -> {};
        private LongSupplier nanoTime = MonotonicClock::nanoTime;
        private String problemTypeBase = "/problems/";

        private Builder() {}

        /** The largest body accepted (default 1 MiB). */
        public Builder maxBodyBytes(int maxBodyBytes) {
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /** How long the whole body may take to arrive, from the headers (default 30 s). */
        public Builder bodyTimeout(Duration bodyTimeout) {
            this.bodyTimeout = bodyTimeout;
            return this;
        }

        /**
         * The least average rate of a body, in bytes per second since its headers, once it has
         * taken longer than {@link #minBodyRateGrace} (default 1024; 0 for none).
         */
        public Builder minBodyRate(long bytesPerSecond) {
            this.minBodyRate = bytesPerSecond;
            return this;
        }

        /** How long a body may take before {@link #minBodyRate} counts (default 5 s). */
        public Builder minBodyRateGrace(Duration grace) {
            this.minBodyRateGrace = grace;
            return this;
        }

        /**
         * What all bodies being read or held may take together (default 64 MiB; at least
         * {@code maxBodyBytes + 1}).
         */
        public Builder maxBufferedBytes(long maxBufferedBytes) {
            this.maxBufferedBytes = maxBufferedBytes;
            return this;
        }

        /** How the container ends a read blocked past its deadline (default {@link ReadDeadlines#NONE}). */
        public Builder readDeadlines(ReadDeadlines readDeadlines) {
            this.readDeadlines = readDeadlines;
            return this;
        }

        /** Told of every refused body (default: nobody). */
        public Builder listener(Listener listener) {
            this.listener = listener;
            return this;
        }

        /** Monotonic time in nanoseconds (default: the JVM's monotonic clock); for tests. */
        public Builder nanoTime(LongSupplier nanoTime) {
            this.nanoTime = nanoTime;
            return this;
        }

        /** Prefix of problem {@code type} URIs (default {@code /problems/}). */
        public Builder problemTypeBase(String base) {
            this.problemTypeBase = base;
            return this;
        }

        /**
         * The filter.
         *
         * @throws IllegalArgumentException if a value is out of range (the message names it)
         */
        public RequestBodyFilter build() {
            return new RequestBodyFilter(new BodySettings(
                    maxBodyBytes,
                    bodyTimeout.toNanos(),
                    minBodyRate,
                    minBodyRateGrace.toNanos(),
                    maxBufferedBytes,
                    readDeadlines,
                    listener,
                    nanoTime,
                    problemTypeBase));
        }
    }
}

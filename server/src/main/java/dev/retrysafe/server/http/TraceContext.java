package dev.retrysafe.server.http;

import dev.retrysafe.delivery.OutboxEvent;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The W3C Trace Context of the request being handled on this thread, so that the events it
 * records carry it into their webhooks. A request's valid {@code traceparent} header is kept as it
 * came (the server makes no spans of its own, so it passes its caller's parent on unchanged); a
 * request without one, or with one that is not valid, gets a new trace when it first asks: a
 * random trace id and parent id, flags {@code 00} (not sampled: the server records nothing of it,
 * so it makes no sampling decision a receiver should follow). {@code tracestate} is not kept.
 * Work outside a request (report jobs) has none: {@link #current()} is null there. The filter
 * installs and clears it around each request; confined to the request's thread.
 */
public final class TraceContext implements Filter {

    /** The header, in the lower case W3C Trace Context writes it. */
    public static final String HEADER = "traceparent";

    private static final ThreadLocal<@Nullable Holder> CURRENT = new ThreadLocal<>();

    /** One request's trace: the one it carried, or one made on first use. */
    private static final class Holder {
        private @Nullable String traceparent;

        Holder(@Nullable String traceparent) {
            this.traceparent = traceparent;
        }

        String traceparent() {
            String t = traceparent;
            if (t == null) {
                t = start();
                traceparent = t;
            }
            return t;
        }
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String given = request instanceof HttpServletRequest http ? http.getHeader(HEADER) : null;
        Holder outer = CURRENT.get();
        CURRENT.set(new Holder(given != null && OutboxEvent.isTraceparent(given) ? given : null));
        try {
            chain.doFilter(request, response);
        } finally {
            CURRENT.set(outer);
        }
    }

    /**
     * The {@code traceparent} of the request being handled on this thread (the one it carried, or
     * a new one, the same for the whole request); null outside a request.
     */
    public static @Nullable String current() {
        Holder h = CURRENT.get();
        return h == null ? null : h.traceparent();
    }

    /** A new trace: version 00, random non-zero trace and parent ids, not sampled. */
    static String start() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high;
        long low;
        do {
            high = random.nextLong();
            low = random.nextLong();
        } while (high == 0 && low == 0);
        long parent;
        do {
            parent = random.nextLong();
        } while (parent == 0);
        HexFormat hex = HexFormat.of();
        return "00-" + hex.toHexDigits(high) + hex.toHexDigits(low) + "-" + hex.toHexDigits(parent) + "-00";
    }
}

package dev.retrysafe.server.http;

import dev.retrysafe.servlet.ReadDeadlines;
import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;

/**
 * Ends a blocked body read on Jetty at its deadline: the connection's idle timeout is set to the
 * time left before each read, so that a client sending nothing is timed out then (Jetty fails the
 * read with a {@link java.util.concurrent.TimeoutException} and the response can still be
 * written), and restored once the body is read. A client that trickles bytes resets the idle
 * timer with each one; the filter's own check between reads cuts it off. Over HTTP/1.1 a
 * connection carries one request at a time, so the timeout is the request's while it reads.
 * Threadsafe.
 */
public final class JettyReadDeadlines implements ReadDeadlines {

    @Override
    public Deadline open(HttpServletRequest request) {
        ServletContextRequest jetty = ServletContextRequest.getServletContextRequest(request);
        if (jetty == null) {
            return NONE.open(request);
        }
        EndPoint endPoint = jetty.getConnectionMetaData().getConnection().getEndPoint();
        long own = endPoint.getIdleTimeout();
        return new Deadline() {
            @Override
            public void within(long nanos) {
                // never longer than Jetty's own, never 0 (which would mean no timeout at all)
                long millis = Math.max(1, Math.min(own > 0 ? own : Long.MAX_VALUE, (nanos + 999_999) / 1_000_000));
                endPoint.setIdleTimeout(millis);
            }

            @Override
            public void close() {
                endPoint.setIdleTimeout(own);
            }
        };
    }
}

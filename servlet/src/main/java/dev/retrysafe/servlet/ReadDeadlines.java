package dev.retrysafe.servlet;

import jakarta.servlet.http.HttpServletRequest;

/**
 * How the servlet container ends a read of a request body that blocks past a deadline (SPI), for
 * {@link RequestBodyFilter}. The Servlet API has no way to time out a blocking read, so each
 * container needs its own: on Jetty, the connection's idle timeout set to the time left (see the
 * Retrysafe server's {@code JettyReadDeadlines}). Implementations are threadsafe; the
 * {@link Deadline} they open is used by one request, on its thread.
 */
@FunctionalInterface
public interface ReadDeadlines {

    /**
     * No way to end a blocked read early: the filter checks the deadline between reads, so a body
     * that trickles in is still cut off at its deadline, but a client that sends nothing at all
     * is ended only by the container's own idle timeout.
     */
    ReadDeadlines NONE = request -> new Deadline() {
        @Override
        public void within(long nanos) {}

        @Override
        public void close() {}
    };

    /** Takes charge of the timeouts of {@code request}'s body reads until the deadline is closed. */
    Deadline open(HttpServletRequest request);

    /** The deadline of one request's body reads. Used by one thread. */
    interface Deadline extends AutoCloseable {

        /**
         * From now on, a read of the body that blocks for longer than {@code nanos} must fail with
         * an {@link java.io.IOException} caused by a {@link java.util.concurrent.TimeoutException}
         * (or an {@link java.io.InterruptedIOException}). Called before every read, with the
         * time left.
         */
        void within(long nanos);

        /** Gives the container its own timeouts back. */
        @Override
        void close();
    }
}

package dev.retrysafe.delivery.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpHeader;
import org.jspecify.annotations.Nullable;

/**
 * Listens to one webhook answer: keeps the status, {@code Retry-After} and the first
 * {@code limit} bytes of the body, then aborts the exchange, so that a receiver sending 100 MB
 * costs us {@code limit} bytes and a closed connection, not a read of 100 MB. Aborting (rather
 * than draining) means the connection is not reused; a receiver that talks too much pays for a
 * new connection next time. Jetty calls it from one thread at a time for a given exchange.
 */
public final class SnippetListener implements Response.Listener {

    /** How an exchange ended; {@code failure} is {@code null} when the answer is usable. */
    public record Exchange(
            int status,
            @Nullable String retryAfter,
            byte[] snippet,
            @Nullable Throwable failure) {
        public Exchange {
            snippet = snippet.clone();
        }

        @Override
        public byte[] snippet() {
            return snippet.clone();
        }
    }

    /** The abort cause of our own "enough read" abort; recognised by identity, never reported. */
    private static final Throwable ENOUGH = new Exception("snippet complete", null, false, false) {};

    private final int limit;
    private final byte[] buffer;
    private final CompletableFuture<Exchange> result = new CompletableFuture<>();
    private int length;
    private volatile boolean enough;

    /** A listener that keeps at most {@code limit} bytes of the body. */
    public SnippetListener(int limit) {
        this.limit = limit;
        this.buffer = new byte[limit];
    }

    /** Completes when the exchange has ended, one way or another. */
    public CompletableFuture<Exchange> result() {
        return result;
    }

    @Override
    public synchronized void onContent(Response response, ByteBuffer content) {
        int take = Math.min(content.remaining(), limit - length);
        content.get(buffer, length, take);
        length += take;
        if (length >= limit && !enough) {
            enough = true;
            response.abort(ENOUGH);
        }
    }

    @Override
    public synchronized void onComplete(Result outcome) {
        Response response = outcome.getResponse();
        Throwable failure = outcome.getFailure();
        if (failure == ENOUGH || (enough && failure != null && causedByEnough(failure))) {
            failure = null;
        }
        int status = response == null ? 0 : response.getStatus();
        String retryAfter = response == null ? null : response.getHeaders().get(HttpHeader.RETRY_AFTER);
        result.complete(new Exchange(status, retryAfter, Arrays.copyOf(buffer, length), failure));
    }

    private static boolean causedByEnough(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t == ENOUGH) {
                return true;
            }
        }
        return false;
    }
}

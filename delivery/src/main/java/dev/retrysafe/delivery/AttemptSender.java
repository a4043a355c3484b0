package dev.retrysafe.delivery;

import java.net.URI;
import java.util.Map;

/**
 * Sends one attempt of one delivery (SPI): an HTTP POST of exactly {@code body} with
 * {@code headers} to {@code url}. The implementation resolves the host itself, checks every
 * address against the SSRF rules and connects only to a checked address; it never follows a
 * redirect, bounds the whole exchange by its timeout, and reads at most
 * {@link AttemptResult#MAX_SNIPPET_BYTES} of the answer. It reports every failure as an
 * {@link AttemptResult}, never by throwing. Implementations are threadsafe.
 */
public interface AttemptSender extends AutoCloseable {

    /**
     * Sends the attempt and waits for its outcome (call it from a virtual thread).
     *
     * @param headers the request headers to send besides {@code Content-Type: application/json}
     *                (the signature headers), by name
     */
    AttemptResult send(URI url, Map<String, String> headers, byte[] body);

    /** Stops sending; attempts in flight are abandoned (their results are failures). */
    @Override
    void close();
}

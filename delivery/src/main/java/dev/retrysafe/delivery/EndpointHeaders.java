package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.CustomHeaders;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The rules of an endpoint's custom headers ({@link NewEndpoint#headers}), for an API that wants
 * to answer a bad one with a {@code 400} before building the request: at most
 * {@value #MAX_COUNT}; names HTTP tokens (RFC 9110) of at most {@value #MAX_NAME_LENGTH}
 * characters, case-insensitively distinct, none the dispatcher sets itself ({@code webhook-id},
 * {@code webhook-signature}, {@code webhook-timestamp}, {@code traceparent}, {@code tracestate},
 * {@code user-agent}, {@code content-*} framing, {@code host}, {@code connection},
 * {@code transfer-encoding}, {@code upgrade}, {@code te}, {@code trailer}, {@code expect},
 * {@code keep-alive}, any {@code proxy-*}); values 1 to {@value #MAX_VALUE_LENGTH} characters of
 * visible ASCII, spaces and tabs, not starting or ending with white space. Stateless.
 */
public final class EndpointHeaders {

    /** Most custom headers on one endpoint. */
    public static final int MAX_COUNT = CustomHeaders.MAX_COUNT;
    /** Longest header name. */
    public static final int MAX_NAME_LENGTH = CustomHeaders.MAX_NAME_LENGTH;
    /** Longest header value. */
    public static final int MAX_VALUE_LENGTH = CustomHeaders.MAX_VALUE_LENGTH;

    private EndpointHeaders() {}

    /**
     * What is wrong with {@code headers}: the first rule broken, naming the header and never
     * quoting a value (safe to answer and to log); null when they may be used.
     */
    public static @Nullable String problem(Map<String, String> headers) {
        return CustomHeaders.problem(headers);
    }
}

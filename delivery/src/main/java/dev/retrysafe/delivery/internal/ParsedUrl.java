package dev.retrysafe.delivery.internal;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A webhook URL as {@link UrlParser} understood it. Immutable.
 *
 * @param scheme       {@code http} or {@code https}
 * @param host         lower case ASCII, no trailing dot; an IP literal in canonical form
 *                     (dotted quad, or RFC 5952 in brackets)
 * @param port         explicit or the scheme's default
 * @param literal      the address when the host is an IP literal (4 or 16 bytes), else {@code null}
 * @param pathAndQuery the raw path (at least {@code /}) and query; the fragment is never sent
 */
public record ParsedUrl(String scheme, String host, int port, byte @Nullable [] literal, String pathAndQuery) {

    public ParsedUrl {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(pathAndQuery, "pathAndQuery");
        literal = literal == null ? null : literal.clone();
    }

    @Override
    public byte @Nullable [] literal() {
        return literal == null ? null : literal.clone();
    }

    /** The host without IPv6 brackets, as a resolver or a DNS name check wants it. */
    public String bareHost() {
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }
}

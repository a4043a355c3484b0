package dev.retrysafe.client.internal;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers, per host ({@code scheme://host:port}), until when its rate limit is exhausted, so the
 * next request there waits for the reset instead of collecting a {@code 429}. An answer that shows
 * budget again clears the host. Expired entries are dropped when looked at. Threadsafe.
 */
public final class Pacer {

    /** Most hosts remembered; beyond it the map is cleared (a client talks to a few hosts). */
    static final int MAX_HOSTS = 10_000;

    private final Map<String, Instant> exhaustedUntil = new ConcurrentHashMap<>();

    /** How long a request to {@code uri} should wait at {@code now} ({@link Duration#ZERO} mostly). */
    public Duration waitFor(URI uri, Instant now) {
        String host = hostKey(uri);
        Instant until = exhaustedUntil.get(host);
        if (until == null) {
            return Duration.ZERO;
        }
        if (!until.isAfter(now)) {
            exhaustedUntil.remove(host, until);
            return Duration.ZERO;
        }
        return Duration.between(now, until);
    }

    /** Takes note of what the answer from {@code uri}, received at {@code now}, says. */
    public void observe(URI uri, RateLimitHint hint, Instant now) {
        switch (hint) {
            case RateLimitHint.None none -> {}
            case RateLimitHint.Available available -> exhaustedUntil.remove(hostKey(uri));
            case RateLimitHint.Exhausted exhausted -> {
                if (exhaustedUntil.size() >= MAX_HOSTS) {
                    exhaustedUntil.clear();
                }
                exhaustedUntil.put(hostKey(uri), now.plus(exhausted.resetIn()));
            }
        }
    }

    /** {@code scheme://host:port} in lower case, with the scheme's default port filled in. */
    static String hostKey(URI uri) {
        String scheme = uri.getScheme() == null ? "http" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost() == null
                ? String.valueOf(uri.getAuthority())
                : uri.getHost().toLowerCase(Locale.ROOT);
        int port = uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
        return scheme + "://" + host + ":" + port;
    }
}

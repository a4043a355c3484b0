package dev.retrysafe.server.config;

import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * The optional Redis server.
 *
 * @param url {@code redis://[user:password@]host[:port]} or {@code rediss://...}, or {@code null}
 *     when Redis is not used
 */
public record RedisConfig(@Nullable URI url) {

    /** Checks the URL's form. */
    public RedisConfig {
        if (url != null) {
            ConfigException.check("redis".equals(url.getScheme()) || "rediss".equals(url.getScheme()),
                    "redis.url", "must start with redis:// or rediss://, was '" + redacted(url) + "'");
            ConfigException.check(url.getHost() != null && !url.getHost().isEmpty(),
                    "redis.url", "must name a host, was '" + redacted(url) + "'");
        }
    }

    /** Whether Redis is configured. */
    public boolean configured() {
        return url != null;
    }

    /** The port, 6379 when the URL names none. */
    public int port() {
        return url == null || url.getPort() < 0 ? 6379 : url.getPort();
    }

    private static String redacted(URI url) {
        return url.getUserInfo() == null ? url.toString() : url.toString().replace(url.getRawUserInfo(), "***");
    }
}

package dev.retrysafe.server.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The optional Redis: one server, or a Redis Cluster.
 *
 * @param url {@code redis://[user:password@]host[:port][/db]} or {@code rediss://...} for one
 *     server; {@code redis-cluster://[user:password@]host[:port][,host[:port]...]} or
 *     {@code rediss-cluster://...} for a Redis Cluster, named by some of its nodes (the seeds the
 *     client learns the others from, all with the same credentials); or {@code null} when Redis is
 *     not used
 */
public record RedisConfig(@Nullable URI url) {

    private static final String SETTING = "redis.url";
    private static final int DEFAULT_PORT = 6379;
    private static final String CLUSTER_SUFFIX = "-cluster";

    /** Checks the URL's form. */
    public RedisConfig {
        if (url != null) {
            nodes(url); // every check is made while reading the nodes
        }
    }

    /** Whether Redis is configured. */
    public boolean configured() {
        return url != null;
    }

    /** Whether the URL names a Redis Cluster ({@code redis-cluster://} or {@code rediss-cluster://}). */
    public boolean cluster() {
        return url != null && url.getScheme().endsWith(CLUSTER_SUFFIX);
    }

    /**
     * The URL of each node, with its port: the one server's URL, or one
     * {@code redis[s]://[user:password@]host:port} per seed of a Cluster. Empty when Redis is not
     * used.
     */
    public List<URI> nodes() {
        return url == null ? List.of() : nodes(url);
    }

    /** The URL with its credentials, if any, replaced by {@code ***}, for logs; empty when Redis is not used. */
    public String describe() {
        return url == null ? "" : redacted(url);
    }

    /** The port of the (first) node, 6379 when the URL names none. */
    public int port() {
        return url == null ? DEFAULT_PORT : nodes(url).getFirst().getPort();
    }

    private static List<URI> nodes(URI url) {
        String scheme = String.valueOf(url.getScheme());
        ConfigException.check(
                List.of("redis", "rediss", "redis-cluster", "rediss-cluster").contains(scheme),
                SETTING,
                "must start with redis://, rediss://, redis-cluster:// or rediss-cluster://, was '" + redacted(url)
                        + "'");
        if (!scheme.endsWith(CLUSTER_SUFFIX)) {
            ConfigException.check(
                    url.getHost() != null && !url.getHost().isEmpty(),
                    SETTING,
                    "must name a host, was '" + redacted(url) + "'");
            return List.of(withPort(url));
        }
        ConfigException.check(
                url.getRawAuthority() != null,
                SETTING,
                "must name at least one node of the Redis Cluster, was '" + redacted(url) + "'");
        ConfigException.check(
                (url.getRawPath() == null
                                || url.getRawPath().isEmpty()
                                || url.getRawPath().equals("/"))
                        && url.getRawQuery() == null
                        && url.getRawFragment() == null,
                SETTING,
                "a Redis Cluster URL names nodes only (a Cluster has only database 0), was '" + redacted(url) + "'");
        String authority = url.getRawAuthority();
        int at = authority.lastIndexOf('@');
        String credentials = at < 0 ? "" : authority.substring(0, at + 1);
        String nodeScheme = scheme.substring(0, scheme.length() - CLUSTER_SUFFIX.length());
        List<URI> nodes = new ArrayList<>();
        for (String node : authority.substring(at + 1).split(",", -1)) {
            URI parsed = null;
            try {
                parsed = new URI(nodeScheme + "://" + credentials + node);
            } catch (URISyntaxException e) {
                // reported below
            }
            if (parsed == null || parsed.getHost() == null || parsed.getHost().isEmpty() || parsed.getPort() > 65_535) {
                throw new ConfigException(
                        SETTING,
                        SETTING + " names each node of a Redis Cluster as host or host:port," + " was '" + node
                                + "' in '" + redacted(url) + "'");
            }
            nodes.add(withPort(parsed));
        }
        return List.copyOf(nodes);
    }

    private static URI withPort(URI url) {
        if (url.getPort() >= 0) {
            return url;
        }
        try {
            return new URI(
                    url.getScheme(),
                    url.getUserInfo(),
                    url.getHost(),
                    DEFAULT_PORT,
                    url.getPath(),
                    url.getQuery(),
                    url.getFragment());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("a valid URL with a port added is valid: " + e.getMessage(), e);
        }
    }

    /** {@code url} with the credentials, if any, replaced by {@code ***}. */
    private static String redacted(URI url) {
        String authority = url.getRawAuthority();
        if (authority == null || authority.lastIndexOf('@') < 0) {
            return url.toString();
        }
        return url.toString().replace(authority, "***" + authority.substring(authority.lastIndexOf('@')));
    }
}

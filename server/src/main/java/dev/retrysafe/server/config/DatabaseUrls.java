package dev.retrysafe.server.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Turns the URL forms operators paste (a JDBC URL, or the {@code postgresql://user:pw@host/db}
 * form of libpq and most hosting platforms) into a JDBC URL plus credentials.
 */
final class DatabaseUrls {

    /** A JDBC URL and the credentials that were embedded in the original form, if any. */
    record Parsed(
            String jdbcUrl, @Nullable String user, @Nullable String password) {}

    private DatabaseUrls() {}

    static Parsed parse(String setting, String url) {
        if (url.startsWith("jdbc:")) {
            return new Parsed(url, null, null);
        }
        if (!url.startsWith("postgresql://") && !url.startsWith("postgres://")) {
            throw new ConfigException(
                    setting,
                    setting + " must start with jdbc:postgresql:, postgresql:// or jdbc:h2:, was '" + redact(url)
                            + "'");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new ConfigException(
                    setting, setting + " is not a valid URL (" + e.getReason() + "): '" + redact(url) + "'");
        }
        if (uri.getHost() == null || uri.getPath() == null || uri.getPath().length() < 2) {
            throw new ConfigException(
                    setting,
                    setting + " must name a host and a database, like postgresql://user@host:5432/db, was '"
                            + redact(url) + "'");
        }
        String user = null;
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String[] parts = uri.getRawUserInfo().split(":", 2);
            user = decode(parts[0]);
            password = parts.length > 1 ? decode(parts[1]) : null;
        }
        String host = uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
        String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
        return new Parsed("jdbc:postgresql://" + host + uri.getRawPath() + query, user, password);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** The URL without its password, fit for an error message. */
    static String redact(String url) {
        return url.replaceAll("//([^:/@]*):[^@/]*@", "//$1:***@");
    }
}

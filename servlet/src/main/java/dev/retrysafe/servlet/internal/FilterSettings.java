package dev.retrysafe.servlet.internal;

import dev.retrysafe.idempotency.IdempotencyStore;
import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.servlet.LoadShedder;
import dev.retrysafe.servlet.RequestTransactions;
import dev.retrysafe.servlet.StoredAnswerTransform;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The idempotency filter's settings, checked once and copied. Immutable and threadsafe (provided
 * the data source, store and scope function are).
 *
 * @param dataSource where keyed requests take their connection, unless {@code transactions} is set
 * @param transactions who runs keyed requests' transactions, or {@code null} for the data source
 * @param routeResolver decides each request's route, instead of {@code routes} and
 *     {@code honourEveryPost}, or {@code null}
 * @param storedHeaders lowercase names of the response headers stored with an answer
 * @param transforms the routes whose stored answers pass through a transform, first match wins
 * @param shedding judges keyed requests after their lookup (a replay is never shed), or {@code null}
 */
public record FilterSettings(
        @Nullable DataSource dataSource,
        @Nullable RequestTransactions transactions,
        IdempotencyStore store,
        Clock clock,
        Function<HttpServletRequest, @Nullable String> scope,
        @Nullable Function<HttpServletRequest, IdempotencyFilter.@Nullable Route> routeResolver,
        List<RouteTemplate> routes,
        boolean honourEveryPost,
        Duration lease,
        int maxBodyBytes,
        String problemTypeBase,
        Set<String> storedHeaders,
        List<TransformedRoute> transforms,
        @Nullable LoadShedder shedding) {

    /** The headers stored unless configured otherwise. */
    public static final List<String> DEFAULT_STORED_HEADERS = List.of("Content-Type", "Location");

    /** Checks and copies every setting. */
    public FilterSettings {
        if (dataSource == null && transactions == null) {
            throw new IllegalArgumentException("a data source or request transactions are required");
        }
        checkLease(lease);
        checkMaxBodyBytes(maxBodyBytes);
        checkProblemTypeBase(problemTypeBase);
        routes = List.copyOf(routes);
        transforms = List.copyOf(transforms);
        storedHeaders = storedHeaders.stream()
                .map(name -> checkHeaderName(name).toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet());
    }

    /** A route whose stored answers pass through {@code transform}. */
    public record TransformedRoute(RouteTemplate route, StoredAnswerTransform transform) {}

    /** The transform of the first route that {@code method} {@code path} matches, or {@code null}. */
    public @Nullable StoredAnswerTransform transformFor(String method, String path) {
        for (TransformedRoute transformed : transforms) {
            if (transformed.route().matches(method, path)) {
                return transformed.transform();
            }
        }
        return null;
    }

    /** Rejects a lease that is not positive. */
    public static Duration checkLease(Duration lease) {
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("lease must be positive: " + lease);
        }
        return lease;
    }

    /** Rejects a body bound that is not positive or leaves no room for the bound check. */
    public static int checkMaxBodyBytes(int maxBodyBytes) {
        if (maxBodyBytes < 1 || maxBodyBytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException(
                    "maxBodyBytes must be 1 to " + (Integer.MAX_VALUE - 16) + ": " + maxBodyBytes);
        }
        return maxBodyBytes;
    }

    /** Rejects an empty base or one with characters that would break the JSON or the URI. */
    public static String checkProblemTypeBase(String base) {
        if (base.isEmpty() || base.chars().anyMatch(c -> c <= 0x20 || c >= 0x7F)) {
            throw new IllegalArgumentException(
                    "problemTypeBase must be a non-empty URI prefix without spaces: \"" + base + "\"");
        }
        return base;
    }

    /** Rejects a header name that is not an HTTP token. */
    public static String checkHeaderName(String name) {
        if (name.isEmpty() || !name.chars().allMatch(RouteTemplate::isTokenChar)) {
            throw new IllegalArgumentException("header name must be an HTTP token: \"" + name + "\"");
        }
        return name;
    }
}

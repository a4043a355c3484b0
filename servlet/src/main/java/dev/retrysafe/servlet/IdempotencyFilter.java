package dev.retrysafe.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * STUB (API only; the implementation replaces the body). Applies idempotency keys to any servlet
 * application. This class is threadsafe.
 */
public final class IdempotencyFilter implements Filter {

    private IdempotencyFilter(Builder builder) {
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        chain.doFilter(request, response);
    }

    /** Builds an {@link IdempotencyFilter}. Not threadsafe; the built filter is immutable. */
    public static final class Builder {
        private Builder() {
        }

        /** Where the operation's effects and the stored answers are written (required). */
        public Builder dataSource(DataSource dataSource) {
            return this;
        }

        /** The store of keys and answers (required), e.g. {@code JdbcIdempotencyStore.create(dataSource)}. */
        public Builder store(dev.retrysafe.idempotency.IdempotencyStore store) {
            return this;
        }

        /** Wall clock for leases and retention (default: system UTC). */
        public Builder clock(Clock clock) {
            return this;
        }

        /**
         * Who the request belongs to (the account id), or {@code null} when unauthenticated, in
         * which case the filter lets the request pass untouched (required).
         */
        public Builder scope(Function<HttpServletRequest, @Nullable String> scope) {
            return this;
        }

        /**
         * A route with a template such as {@code /v1/payments} or {@code /v1/payments/{id}/capture}.
         * {@code keyRequired}: a request without a key answers 400; otherwise it passes untouched.
         */
        public Builder route(String method, String template, boolean keyRequired) {
            return this;
        }

        /** Whether every POST not listed by {@link #route} honours a key when one is sent (default true). */
        public Builder honourEveryPost(boolean honour) {
            return this;
        }

        /** How long a claim is held before another request may take it over (default 30 s). */
        public Builder lease(Duration lease) {
            return this;
        }

        /** Largest body fingerprinted; a longer one answers 413 (default 1 MiB). */
        public Builder maxBodyBytes(int maxBodyBytes) {
            return this;
        }

        /** Prefix of problem {@code type} URIs (default {@code /problems/}). */
        public Builder problemTypeBase(String base) {
            return this;
        }

        /** The filter. */
        public IdempotencyFilter build() {
            return new IdempotencyFilter(this);
        }
    }
}

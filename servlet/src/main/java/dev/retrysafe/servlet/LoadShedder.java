package dev.retrysafe.servlet;

import dev.retrysafe.servlet.internal.FilterSettings;
import dev.retrysafe.servlet.internal.HttpOnly;
import dev.retrysafe.servlet.internal.Shedding;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Sheds requests when this instance itself is overloaded: "429 for you, 503 for us". A rate limit
 * refuses a client that asks too much; this refuses work the instance cannot do in time, whoever
 * asks, lowest priority first, so that what matters most keeps being served. This class is
 * threadsafe.
 *
 * <p>The load is one number read per request from {@code pressure}: for a server on a JDBC pool,
 * the requests waiting for a connection (every one of them waits at least as long as a request
 * holds its connection). At {@code lowAt} or more, {@link Priority#LOW} requests are refused; at
 * {@code normalAt} or more, {@link Priority#NORMAL} ones too; {@link Priority#CRITICAL} ones never.
 * A refusal is {@code 503} {@link ProblemType#OVERLOADED} with {@code Retry-After}, given before
 * anything is done for the request (put this filter before the rate limit: a shed request spends
 * no budget).
 *
 * <p>A replay is never shed: whoever asks again for an answer already made must get it. A request
 * with an {@code Idempotency-Key} may be a replay, which only the key's lookup can tell; with
 * {@link Builder#keyedRequestsJudgedAfterLookup} this filter lets every such request through, and
 * the {@link IdempotencyFilter} built with {@link IdempotencyFilter.Builder#shedding} judges it
 * once its lookup found no stored answer (so a keyed request that is shed has waited for one
 * connection).
 *
 * <pre>{@code
 * LoadShedder shedder = LoadShedder.builder()
 *         .pressure(() -> pool.getHikariPoolMXBean().getThreadsAwaitingConnection())
 *         .shedAt(10, 40)
 *         .priority(request -> request.getRequestURI().startsWith("/v1/reports")
 *                 ? LoadShedder.Priority.LOW : LoadShedder.Priority.NORMAL)
 *         .build();
 * }</pre>
 */
public final class LoadShedder implements Filter {

    /** How much a request matters when the instance is overloaded. */
    public enum Priority {
        /** Never shed (payments, refunds). */
        CRITICAL,
        /** Shed when the load reaches the higher bound. */
        NORMAL,
        /** Shed first, when the load reaches the lower bound (reports). */
        LOW;

        /** The name in configuration files and problems: {@code critical}, {@code normal}, {@code low}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final IntSupplier pressure;
    private final int lowAt;
    private final int normalAt;
    private final Function<HttpServletRequest, Priority> priority;
    private final Predicate<HttpServletRequest> exempt;
    private final long retryAfterSeconds;
    private final String problemTypeBase;
    private final boolean keyedAfterLookup;
    private final LongAdder shedLow = new LongAdder();
    private final LongAdder shedNormal = new LongAdder();

    private LoadShedder(Builder builder) {
        this.pressure = Objects.requireNonNull(builder.pressure, "pressure");
        this.lowAt = builder.lowAt;
        this.normalAt = builder.normalAt;
        this.priority = builder.priority;
        this.exempt = builder.exempt;
        this.retryAfterSeconds = builder.retryAfter.toSeconds();
        this.problemTypeBase = builder.problemTypeBase;
        this.keyedAfterLookup = builder.keyedAfterLookup;
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Whether {@code request} is to be shed now, and if so at which priority; counted as shed.
     *
     * @return the request's priority when it is shed, {@code null} when it goes on
     */
    public @Nullable Priority sheds(HttpServletRequest request) {
        if (exempt.test(request)) {
            return null;
        }
        Priority p = priority.apply(request);
        if (p == null || p == Priority.CRITICAL) {
            return null;
        }
        int load = pressure.getAsInt();
        if (p == Priority.LOW && load >= lowAt) {
            shedLow.increment();
            return p;
        }
        if (load >= normalAt) {
            (p == Priority.LOW ? shedLow : shedNormal).increment();
            return p;
        }
        return null;
    }

    /** Requests shed so far at {@code p} (0 for {@link Priority#CRITICAL}), for metrics. */
    public long shedCount(Priority p) {
        return switch (p) {
            case LOW -> shedLow.sum();
            case NORMAL -> shedNormal.sum();
            case CRITICAL -> 0;
        };
    }

    /** The load now, as the pressure function reads it (for metrics). */
    public int pressure() {
        return pressure.getAsInt();
    }

    /** {@code Retry-After} of a refusal, in seconds. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** Prefix of the problem's {@code type} URI. */
    public String problemTypeBase() {
        return problemTypeBase;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpOnly.filter(request, response, chain, (httpRequest, httpResponse, next) -> {
            if (keyedAfterLookup && httpRequest.getHeader(IdempotencyFilter.KEY_HEADER) != null) {
                next.doFilter(httpRequest, httpResponse); // perhaps a replay: judged after the lookup
                return;
            }
            Priority shed = sheds(httpRequest);
            if (shed != null) {
                Shedding.refuse(httpRequest, httpResponse, this, shed);
                return;
            }
            next.doFilter(httpRequest, httpResponse);
        });
    }

    /** Builds a {@link LoadShedder}. Not threadsafe; the built shedder is immutable. */
    public static final class Builder {
        private @Nullable IntSupplier pressure;
        private int lowAt = Integer.MAX_VALUE;
        private int normalAt = Integer.MAX_VALUE;
        private Function<HttpServletRequest, Priority> priority = request -> Priority.NORMAL;
        private Predicate<HttpServletRequest> exempt = request -> false;
        private Duration retryAfter = Duration.ofSeconds(1);
        private String problemTypeBase = "/problems/";
        private boolean keyedAfterLookup;

        private Builder() {}

        /** The instance's load now, e.g. requests waiting for a database connection (required). */
        public Builder pressure(IntSupplier pressure) {
            this.pressure = Objects.requireNonNull(pressure, "pressure");
            return this;
        }

        /**
         * Sheds {@link Priority#LOW} requests from a load of {@code lowAt}, {@link Priority#NORMAL}
         * ones from {@code normalAt} (default: never).
         *
         * @throws IllegalArgumentException unless {@code 1 <= lowAt <= normalAt}
         */
        public Builder shedAt(int lowAt, int normalAt) {
            if (lowAt < 1 || normalAt < lowAt) {
                throw new IllegalArgumentException(
                        "need 1 <= lowAt <= normalAt, got lowAt " + lowAt + ", normalAt " + normalAt);
            }
            this.lowAt = lowAt;
            this.normalAt = normalAt;
            return this;
        }

        /** Each request's priority (default: every request {@link Priority#NORMAL}). */
        public Builder priority(Function<HttpServletRequest, Priority> priority) {
            this.priority = Objects.requireNonNull(priority, "priority");
            return this;
        }

        /** Requests never shed, whatever their priority (default: none). */
        public Builder exempt(Predicate<HttpServletRequest> exempt) {
            this.exempt = Objects.requireNonNull(exempt, "exempt");
            return this;
        }

        /** {@code Retry-After} of a refusal, whole seconds, 1s..1h (default 1s). */
        public Builder retryAfter(Duration retryAfter) {
            if (retryAfter.compareTo(Duration.ofSeconds(1)) < 0
                    || retryAfter.compareTo(Duration.ofHours(1)) > 0
                    || retryAfter.toNanos() % 1_000_000_000L != 0) {
                throw new IllegalArgumentException("retryAfter must be whole seconds, 1s..1h: " + retryAfter);
            }
            this.retryAfter = retryAfter;
            return this;
        }

        /** Prefix of problem {@code type} URIs (default {@code /problems/}). */
        public Builder problemTypeBase(String base) {
            this.problemTypeBase = FilterSettings.checkProblemTypeBase(base);
            return this;
        }

        /**
         * Lets requests with an {@code Idempotency-Key} through this filter, for an
         * {@link IdempotencyFilter} built with {@link IdempotencyFilter.Builder#shedding} to judge
         * after its lookup, so that a replay is never shed (default: judged here like any other).
         */
        public Builder keyedRequestsJudgedAfterLookup(boolean afterLookup) {
            this.keyedAfterLookup = afterLookup;
            return this;
        }

        /** The shedder. */
        public LoadShedder build() {
            return new LoadShedder(this);
        }
    }
}

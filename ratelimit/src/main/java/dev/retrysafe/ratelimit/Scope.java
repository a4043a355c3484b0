package dev.retrysafe.ratelimit;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Whose budget a request spends: the key a policy counts under. A scope that has no key for a
 * request (an {@code api_key} policy on an unauthenticated request) does not apply to it.
 * Implementations must be threadsafe and cheap.
 */
public interface Scope {

    /** The scope's name, as in configuration: {@code api_key}, {@code account}, ... */
    String id();

    /** The counter key for this request, or {@code null} when the scope does not apply. */
    @Nullable
    String keyFor(RequestFacts facts);

    /** One budget per API key. */
    static Scope apiKey() {
        return Builtin.API_KEY;
    }

    /** One budget per account, shared by all of its keys. */
    static Scope account() {
        return Builtin.ACCOUNT;
    }

    /** One budget per client address; the scope for unauthenticated requests. */
    static Scope ip() {
        return Builtin.IP;
    }

    /** One budget per account and route group (for example 60 reports per hour per account). */
    static Scope accountAndRouteGroup() {
        return Builtin.ACCOUNT_ROUTE_GROUP;
    }

    /** A scope keyed by {@code keyFunction}, which returns {@code null} when it does not apply. */
    static Scope custom(String name, Function<RequestFacts, @Nullable String> keyFunction) {
        Objects.requireNonNull(keyFunction, "keyFunction");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a custom scope needs a name");
        }
        return new Scope() {
            @Override
            public String id() {
                return name;
            }

            @Override
            public @Nullable String keyFor(RequestFacts facts) {
                return keyFunction.apply(facts);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    /** Parses {@code api_key}, {@code account}, {@code ip} or {@code account+route_group}. */
    static Scope parse(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (Builtin scope : Builtin.values()) {
            if (scope.configName.equals(wanted)) {
                return scope;
            }
        }
        throw new IllegalArgumentException("scope must be one of api_key, account, ip, account+route_group: " + name);
    }

    /** The built-in scopes. */
    enum Builtin implements Scope {
        API_KEY("api_key") {
            @Override
            public @Nullable String keyFor(RequestFacts facts) {
                return facts.apiKeyId();
            }
        },
        ACCOUNT("account") {
            @Override
            public @Nullable String keyFor(RequestFacts facts) {
                return facts.accountId();
            }
        },
        IP("ip") {
            @Override
            public @Nullable String keyFor(RequestFacts facts) {
                return facts.ip();
            }
        },
        ACCOUNT_ROUTE_GROUP("account+route_group") {
            @Override
            public @Nullable String keyFor(RequestFacts facts) {
                String account = facts.accountId();
                String group = facts.routeGroup();
                return account == null || group == null ? null : account + "|" + group;
            }
        };

        private final String configName;

        Builtin(String configName) {
            this.configName = configName;
        }

        @Override
        public String id() {
            return configName;
        }

        @Override
        public String toString() {
            return configName;
        }
    }
}

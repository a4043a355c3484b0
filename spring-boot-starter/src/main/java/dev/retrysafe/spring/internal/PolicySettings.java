package dev.retrysafe.spring.internal;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.PolicyMode;
import dev.retrysafe.ratelimit.RequestFacts;
import dev.retrysafe.ratelimit.Scope;
import java.time.Duration;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** Turns the fields of one configured policy into a {@link Policy}, naming the property at fault. Stateless. */
public final class PolicySettings {

    private PolicySettings() {}

    /**
     * The policy {@code name} with these fields, as the server's {@code rate_limits.policies} reads them.
     *
     * @throws IllegalArgumentException naming {@code retrysafe.rate-limits.policies.<name>.<field>}
     */
    public static Policy policy(
            String name,
            String scope,
            String algorithm,
            long quota,
            @Nullable Duration window,
            @Nullable Long burst,
            long cost,
            String fail,
            String appliesTo,
            String mode) {
        String at = "retrysafe.rate-limits.policies." + name;
        if (window == null) {
            throw new IllegalArgumentException(at + ".window is required");
        }
        try {
            Scope parsed = restricted(Scope.parse(scope), appliesTo, at);
            return new Policy(
                    name,
                    parsed,
                    Algorithm.parse(algorithm),
                    quota,
                    window,
                    burst == null ? quota : burst,
                    cost,
                    FailMode.parse(fail),
                    null,
                    PolicyMode.parse(mode));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
        }
    }

    private static Scope restricted(Scope scope, String appliesTo, String at) {
        Function<RequestFacts, @Nullable String> key = switch (appliesTo) {
            case "all" -> null;
            case "authenticated" -> facts -> facts.accountId() == null ? null : scope.keyFor(facts);
            case "unauthenticated" -> facts -> facts.accountId() != null ? null : scope.keyFor(facts);
            default ->
                throw new IllegalArgumentException(
                        at + ".applies-to must be all, authenticated or unauthenticated, was '" + appliesTo + "'");
        };
        return key == null ? scope : Scope.custom(scope.id(), key);
    }
}

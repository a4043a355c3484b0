package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.PolicyState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The decision when Redis cannot be asked: each policy's fail mode decides. */
public final class Unreachable {

    private Unreachable() {}

    /**
     * {@link Decision.Unavailable} naming the first enforced fail-closed policy if there is one
     * (every state unknown, nothing charged anywhere); else the fail-local policies are decided by
     * {@code fallback}, all or nothing, and the fail-open ones let the request through uncounted
     * (their states unknown): {@link Decision.Rejected} when a local share is spent, else
     * {@link Decision.Allowed}. A shadow policy never fails closed: it is uncounted instead.
     *
     * @param mode       what the call was to do; the fallback does the same in this process
     * @param retryAfter how long until Redis is tried again; rounded up to whole seconds, at least 1
     */
    public static Decision decision(
            List<Charge> charges, long nowMicros, Duration retryAfter, LocalFallback fallback, ScriptCall.Mode mode) {
        List<PolicyState> states = new ArrayList<>(charges.size());
        List<Charge> local = new ArrayList<>(0);
        Charge failedClosed = null;
        for (Charge charge : charges) {
            states.add(PolicyState.unknown(charge.policy(), charge.key(), nowMicros));
            FailMode failMode = charge.policy().failMode();
            if (failedClosed == null
                    && failMode == FailMode.CLOSED
                    && !charge.policy().shadow()) {
                failedClosed = charge;
            }
            if (failMode == FailMode.LOCAL) {
                local.add(charge);
            }
        }
        if (failedClosed != null) {
            long seconds = Math.max(1, Math.ceilDiv(retryAfter.toNanos(), 1_000_000_000L));
            return new Decision.Unavailable(failedClosed.policy(), seconds, states);
        }
        if (local.isEmpty()) {
            return new Decision.Allowed(states);
        }
        Decision decided = fallback.decide(local, mode);
        int next = 0;
        for (int i = 0; i < charges.size(); i++) {
            if (charges.get(i).policy().failMode() == FailMode.LOCAL) {
                states.set(i, decided.states().get(next++));
            }
        }
        return switch (decided) {
            case Decision.Rejected rejected ->
                new Decision.Rejected(rejected.refusedBy(), rejected.retryAfterSeconds(), states);
            default -> new Decision.Allowed(states);
        };
    }
}

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
     * Every state unknown; {@link Decision.Unavailable} naming the first fail-closed policy if
     * there is one, else {@link Decision.Allowed} (uncounted).
     *
     * @param retryAfter how long until Redis is tried again; rounded up to whole seconds, at least 1
     */
    public static Decision decision(List<Charge> charges, long nowMicros, Duration retryAfter) {
        List<PolicyState> states = new ArrayList<>(charges.size());
        Charge failedClosed = null;
        for (Charge charge : charges) {
            states.add(PolicyState.unknown(charge.policy(), charge.key(), nowMicros));
            if (failedClosed == null && charge.policy().failMode() == FailMode.CLOSED) {
                failedClosed = charge;
            }
        }
        if (failedClosed == null) {
            return new Decision.Allowed(states);
        }
        long seconds = Math.max(1, Math.ceilDiv(retryAfter.toNanos(), 1_000_000_000L));
        return new Decision.Unavailable(failedClosed.policy(), seconds, states);
    }
}

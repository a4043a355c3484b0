package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.PolicyState;
import java.util.ArrayList;
import java.util.List;

/** Turns the reply of {@code decide.lua} into a {@link Decision}. */
public final class ScriptReply {

    private static final int HEADER = 2;
    private static final int PER_CHARGE = 4;

    private ScriptReply() {}

    /**
     * The decision for {@code charges} from the script's {@code reply}.
     *
     * @param charged true when the script was asked to charge, false for a peek (always allowed)
     */
    public static Decision decision(List<Charge> charges, List<Object> reply, boolean charged) {
        if (reply.size() != HEADER + PER_CHARGE * charges.size()) {
            throw new IllegalStateException("decide.lua answered " + reply.size() + " values for "
                    + charges.size() + " charges: " + reply);
        }
        long nowMicros = number(reply, 0);
        boolean allAllow = number(reply, 1) == 1;
        List<PolicyState> states = new ArrayList<>(charges.size());
        PolicyState refusedBy = null;
        long retryAfterSeconds = 1;
        for (int i = 0; i < charges.size(); i++) {
            Charge charge = charges.get(i);
            int at = HEADER + PER_CHARGE * i;
            boolean allows = number(reply, at) == 1;
            PolicyState state = new PolicyState(charge.policy(), charge.key(), charge.policy().quota(),
                    number(reply, at + 1), number(reply, at + 2), number(reply, at + 3), nowMicros, true);
            states.add(state);
            if (!allows) {
                if (refusedBy == null) {
                    refusedBy = state;
                }
                // the request fits again only once every refusing policy allows it
                retryAfterSeconds = Math.max(retryAfterSeconds, state.retryAfterSeconds());
            }
        }
        if (!charged || allAllow) {
            return new Decision.Allowed(states);
        }
        if (refusedBy == null) {
            throw new IllegalStateException("decide.lua refused without a refusing charge: " + reply);
        }
        return new Decision.Rejected(refusedBy, retryAfterSeconds, states);
    }

    private static long number(List<Object> reply, int index) {
        if (reply.get(index) instanceof Long value) {
            return value;
        }
        throw new IllegalStateException("decide.lua answered a non-integer at " + index + ": " + reply);
    }
}

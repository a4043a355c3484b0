package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Decision;
import dev.retrysafe.ratelimit.PolicyState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Turns the reply of {@code decide.lua} into a {@link Decision}, one request at a time. */
public final class ScriptReply {

    /** Where the first request's figures start in a reply: after the time. */
    public static final int FIRST = 1;

    private static final int PER_CHARGE = 3;

    private ScriptReply() {}

    /** How many values of a reply one request of {@code charges} charges takes: three per charge. */
    public static int size(int charges) {
        return PER_CHARGE * charges;
    }

    /**
     * The decision for {@code charges} from the script's {@code reply}, whose figures for this
     * request start at {@code at} ({@link #FIRST} for a call of one request).
     *
     * @param mode    what the script was asked to do: only a charge can be refused (a peek and a
     *                refund are always allowed)
     * @throws RequestFailed when the script could not decide this request (its keys or policies)
     */
    public static Decision decision(List<Charge> charges, List<Object> reply, int at, ScriptCall.Mode mode) {
        if (reply.size() < at + size(charges.size())) {
            throw new IllegalStateException("decide.lua answered " + reply.size() + " values, too few for "
                    + charges.size() + " charges from " + at + ": " + reply);
        }
        long nowMicros = number(reply, 0);
        if (reply.get(at) instanceof Long status && status == -1) {
            Object why = reply.get(at + 1);
            throw new RequestFailed(
                    why instanceof byte[] text ? new String(text, StandardCharsets.UTF_8) : String.valueOf(why));
        }
        List<PolicyState> states = new ArrayList<>(charges.size());
        PolicyState refusedBy = null;
        long retryAfterSeconds = 1;
        for (int i = 0; i < charges.size(); i++) {
            Charge charge = charges.get(i);
            int first = at + PER_CHARGE * i;
            long retryAfterMicros = number(reply, first + 2);
            PolicyState state = new PolicyState(
                    charge.policy(),
                    charge.key(),
                    charge.policy().quota(),
                    number(reply, first),
                    number(reply, first + 1),
                    retryAfterMicros,
                    nowMicros,
                    true);
            states.add(state);
            // a charge allows if and only if it need not wait
            if (retryAfterMicros != 0) {
                if (refusedBy == null) {
                    refusedBy = state;
                }
                // the request fits again only once every refusing policy allows it
                retryAfterSeconds = Math.max(retryAfterSeconds, state.retryAfterSeconds());
            }
        }
        if (mode != ScriptCall.Mode.CHARGE || refusedBy == null) {
            return new Decision.Allowed(states);
        }
        return new Decision.Rejected(refusedBy, retryAfterSeconds, states);
    }

    /** The script could not decide one request: a key of another type under the prefix, say. */
    public static final class RequestFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RequestFailed(String message) {
            super(message);
        }
    }

    private static long number(List<Object> reply, int index) {
        if (reply.get(index) instanceof Long value) {
            return value;
        }
        throw new IllegalStateException("decide.lua answered a non-integer at " + index + ": " + reply);
    }
}

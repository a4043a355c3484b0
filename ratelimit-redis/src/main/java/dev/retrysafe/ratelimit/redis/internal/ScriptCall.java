package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Policy;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * The keys and arguments of one run of {@code decide.lua} (its header documents the layout).
 *
 * @param keys      one base key per charge
 * @param arguments mode, time, least key lifetime, then five per charge
 */
public record ScriptCall(String[] keys, String[] arguments) {

    private static final int HEADER_ARGUMENTS = 3;
    private static final int ARGUMENTS_PER_CHARGE = 5;

    public ScriptCall {
        if (arguments.length != HEADER_ARGUMENTS + ARGUMENTS_PER_CHARGE * keys.length) {
            throw new IllegalArgumentException("decide.lua takes 3 + 5 arguments per key, got "
                    + arguments.length + " for " + keys.length + " keys");
        }
        keys = keys.clone();
        arguments = arguments.clone();
    }

    /**
     * The call for {@code charges}.
     *
     * @param charge        true to charge, false to peek
     * @param nowMicros     the time to decide at; empty to use Redis's clock
     * @param minimumKeyTtl the least time a written key lives
     */
    public static ScriptCall of(KeyLayout layout, String partition, List<Charge> charges, boolean charge,
            OptionalLong nowMicros, Duration minimumKeyTtl) {
        String[] keys = new String[charges.size()];
        String[] arguments = new String[HEADER_ARGUMENTS + ARGUMENTS_PER_CHARGE * charges.size()];
        arguments[0] = charge ? "1" : "0";
        arguments[1] = nowMicros.isPresent() ? Long.toString(nowMicros.getAsLong()) : "";
        arguments[2] = Long.toString(minimumKeyTtl.toMillis());
        for (int i = 0; i < charges.size(); i++) {
            Charge c = charges.get(i);
            Policy policy = c.policy();
            keys[i] = layout.baseKey(partition, c);
            int at = HEADER_ARGUMENTS + ARGUMENTS_PER_CHARGE * i;
            arguments[at] = policy.algorithm().configName();
            arguments[at + 1] = Long.toString(policy.windowMicros());
            arguments[at + 2] = Long.toString(policy.quota());
            arguments[at + 3] = Long.toString(policy.burst());
            arguments[at + 4] = Long.toString(c.cost());
        }
        return new ScriptCall(keys, arguments);
    }

    // the accessors hand out copies: a record's arrays would otherwise be shared and mutable
    @Override
    public String[] keys() {
        return keys.clone();
    }

    @Override
    public String[] arguments() {
        return arguments.clone();
    }
}

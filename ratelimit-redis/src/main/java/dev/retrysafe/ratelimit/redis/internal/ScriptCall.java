package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Policy;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * The keys and arguments of one run of {@code decide.lua} (its header documents the layout), as
 * the bytes that go on the wire. Built for one call and handed to Lettuce as is: the arrays are
 * neither copied nor changed after {@link #of}.
 *
 * @param keys      one base key per charge
 * @param arguments mode, time, least key lifetime, then five per charge
 */
public record ScriptCall(byte[][] keys, byte[][] arguments) {

    private static final int HEADER_ARGUMENTS = 3;
    private static final int ARGUMENTS_PER_CHARGE = 5;
    private static final byte[] CHARGE = ascii("1");
    private static final byte[] PEEK = ascii("0");
    private static final byte[] REDIS_TIME = new byte[0];
    /** Each algorithm's name as the script knows it, by ordinal. */
    private static final byte[][] ALGORITHMS = Arrays.stream(Algorithm.values())
            .map(algorithm -> ascii(algorithm.configName()))
            .toArray(byte[][]::new);

    public ScriptCall {
        if (arguments.length != HEADER_ARGUMENTS + ARGUMENTS_PER_CHARGE * keys.length) {
            throw new IllegalArgumentException("decide.lua takes 3 + 5 arguments per key, got "
                    + arguments.length + " for " + keys.length + " keys");
        }
    }

    /**
     * The call for {@code charges}.
     *
     * @param charge        true to charge, false to peek
     * @param nowMicros     the time to decide at; empty to use Redis's clock
     * @param minimumKeyTtl the least time in milliseconds a written key lives, as {@link #number}
     */
    public static ScriptCall of(KeyLayout layout, String partition, List<Charge> charges, boolean charge,
            OptionalLong nowMicros, byte[] minimumKeyTtl) {
        byte[][] keys = new byte[charges.size()][];
        byte[][] arguments = new byte[HEADER_ARGUMENTS + ARGUMENTS_PER_CHARGE * charges.size()][];
        arguments[0] = charge ? CHARGE : PEEK;
        arguments[1] = nowMicros.isPresent() ? number(nowMicros.getAsLong()) : REDIS_TIME;
        arguments[2] = minimumKeyTtl;
        for (int i = 0; i < charges.size(); i++) {
            Charge c = charges.get(i);
            Policy policy = c.policy();
            keys[i] = layout.baseKey(partition, c).getBytes(StandardCharsets.UTF_8);
            int at = HEADER_ARGUMENTS + ARGUMENTS_PER_CHARGE * i;
            arguments[at] = ALGORITHMS[policy.algorithm().ordinal()];
            arguments[at + 1] = number(policy.windowMicros());
            arguments[at + 2] = number(policy.quota());
            arguments[at + 3] = number(policy.burst());
            arguments[at + 4] = number(c.cost());
        }
        return new ScriptCall(keys, arguments);
    }

    /** {@code value} in decimal digits, as the script reads numbers. */
    public static byte[] number(long value) {
        return ascii(Long.toString(value));
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}

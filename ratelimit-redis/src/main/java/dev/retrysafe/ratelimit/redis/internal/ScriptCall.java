package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Policy;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * The keys and arguments of one run of {@code decide.lua} for one request (its header documents
 * the layout), as the bytes that go on the wire. Built for one call and handed to Lettuce as is:
 * the arrays are neither copied nor changed after {@link #of}. {@link ScriptBatches} joins the
 * calls of concurrent requests into one.
 *
 * @param keys      one base key per charge
 * @param arguments time, least key lifetime, then the request's: mode, number of charges, and
 *                  five per charge
 */
public record ScriptCall(byte[][] keys, byte[][] arguments) {

    /** The arguments every call starts with (time, least key lifetime), whatever it decides. */
    static final int HEADER_ARGUMENTS = 2;
    /** The arguments of a request before its charges' (mode, number of charges). */
    private static final int REQUEST_ARGUMENTS = 2;
    private static final int ARGUMENTS_PER_CHARGE = 5;
    private static final byte[] CHARGE = ascii("1");
    private static final byte[] PEEK = ascii("0");
    private static final byte[] ONE = ascii("1");
    private static final byte[] REDIS_TIME = new byte[0];
    /** Each algorithm's name as the script knows it, by ordinal. */
    private static final byte[][] ALGORITHMS = Arrays.stream(Algorithm.values())
            .map(algorithm -> ascii(algorithm.configName()))
            .toArray(byte[][]::new);

    public ScriptCall {
        if (arguments.length != HEADER_ARGUMENTS + REQUEST_ARGUMENTS + ARGUMENTS_PER_CHARGE * keys.length) {
            throw new IllegalArgumentException("decide.lua takes 4 + 5 arguments per key for one request, got "
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
        byte[][] arguments =
                new byte[HEADER_ARGUMENTS + REQUEST_ARGUMENTS + ARGUMENTS_PER_CHARGE * charges.size()][];
        arguments[0] = nowMicros.isPresent() ? number(nowMicros.getAsLong()) : REDIS_TIME;
        arguments[1] = minimumKeyTtl;
        arguments[2] = charge ? CHARGE : PEEK;
        arguments[3] = charges.size() == 1 ? ONE : number(charges.size());
        for (int i = 0; i < charges.size(); i++) {
            Charge c = charges.get(i);
            Policy policy = c.policy();
            keys[i] = layout.baseKey(partition, c).getBytes(StandardCharsets.UTF_8);
            int at = HEADER_ARGUMENTS + REQUEST_ARGUMENTS + ARGUMENTS_PER_CHARGE * i;
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

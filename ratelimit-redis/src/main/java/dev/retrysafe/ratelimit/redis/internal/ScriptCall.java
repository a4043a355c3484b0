package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Policy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * One request's part of a {@code decide.lua} call (its header documents the layout): its keys,
 * the kind of each charge (a policy's numbers and a cost), and its {@link Mode}. A call
 * of one request or of several (the transport joins concurrent requests into one) is made
 * by {@link #keysOf} and {@link #argumentsOf}: the kinds of all its requests once each, then one
 * argument per request naming its kinds. Not changed after {@link #of}, except that the arguments of
 * its call alone are made when first asked for: used by one thread at a time, or handed over through
 * a concurrent queue (as the transport's batches do). The arrays handed out are not copied, so
 * callers must not change them.
 */
public final class ScriptCall {

    /** Requests in one call at most (their charges: one or a few each). */
    public static final int MAX_REQUESTS = 64;
    /** The arguments every call starts with (time, least key lifetime), whatever it decides. */
    static final int HEADER_ARGUMENTS = 2;

    private static final int ARGUMENTS_PER_KIND = 5;
    private static final byte[] REDIS_TIME = new byte[0];
    /** Each algorithm's name as the script knows it, by ordinal. */
    private static final byte[][] ALGORITHMS = Arrays.stream(Algorithm.values())
            .map(algorithm -> ascii(algorithm.configName()))
            .toArray(byte[][]::new);
    /** A request charging one key of kind i, for the kinds most calls have: {@code SINGLE[i]}. */
    private static final byte[][] SINGLE = new byte[MAX_REQUESTS + 1][];

    static {
        for (int i = 1; i < SINGLE.length; i++) {
            SINGLE[i] = number(i);
        }
    }

    /** What a request does to its charges; the script reads it from the mark before its kinds. */
    public enum Mode {
        /** Charge every charge if all of them fit (no mark). */
        CHARGE(""),
        /** Evaluate and report, write nothing ({@code ?}). */
        PEEK("?"),
        /** Give every charge back, then report as a peek ({@code !}). */
        REFUND("!");

        private final String mark;

        Mode(String mark) {
            this.mark = mark;
        }
    }

    /**
     * The numbers the script needs of one charge, apart from its key. Requests whose charges are of
     * one kind (the same policy numbers and cost) share the kind's arguments in a joint call.
     * Public for the transport's tests, which build calls of given kinds.
     */
    public record Kind(Algorithm algorithm, long windowMicros, long quota, long burst, long cost) {

        static Kind of(Charge charge) {
            Policy policy = charge.policy();
            return new Kind(policy.algorithm(), policy.windowMicros(), policy.quota(), policy.burst(), charge.cost());
        }

        void writeTo(byte[][] arguments, int at) {
            arguments[at] = ALGORITHMS[algorithm.ordinal()];
            arguments[at + 1] = number(windowMicros);
            arguments[at + 2] = number(quota);
            arguments[at + 3] = number(burst);
            arguments[at + 4] = number(cost);
        }
    }

    private final byte[][] keys;
    private final Kind[] kinds;
    private final Mode mode;
    private final byte[] now;
    private final byte[] minimumKeyTtl;
    /** This request's call alone, made when first asked for (a request sent in a joint call never is). */
    private byte[][] arguments;

    /** A request of {@code kinds}, one per key (tests build calls this way; the store uses {@link #of}). */
    public ScriptCall(byte[][] keys, Kind[] kinds, Mode mode, byte[] now, byte[] minimumKeyTtl) {
        if (keys.length != kinds.length || keys.length == 0) {
            throw new IllegalArgumentException(
                    "one kind per key, and at least one: " + keys.length + " keys, " + kinds.length + " kinds");
        }
        this.keys = keys;
        this.kinds = kinds;
        this.mode = mode;
        this.now = now;
        this.minimumKeyTtl = minimumKeyTtl;
    }

    /**
     * The request for {@code charges}.
     *
     * @param mode          what the request does to its charges
     * @param nowMicros     the time to decide at; empty to use Redis's clock
     * @param minimumKeyTtl the least time in milliseconds a written key lives, as {@link #number}
     */
    public static ScriptCall of(
            KeyLayout layout,
            String partition,
            List<Charge> charges,
            Mode mode,
            OptionalLong nowMicros,
            byte[] minimumKeyTtl) {
        byte[][] keys = new byte[charges.size()][];
        Kind[] kinds = new Kind[charges.size()];
        for (int i = 0; i < charges.size(); i++) {
            Charge c = charges.get(i);
            keys[i] = layout.baseKey(partition, c).getBytes(StandardCharsets.UTF_8);
            kinds[i] = Kind.of(c);
        }
        return new ScriptCall(
                keys, kinds, mode, nowMicros.isPresent() ? number(nowMicros.getAsLong()) : REDIS_TIME, minimumKeyTtl);
    }

    /** The request's keys, one per charge. */
    public byte[][] keys() {
        return keys;
    }

    /** The arguments of a call of this request alone. */
    public byte[][] arguments() {
        if (arguments == null) {
            arguments = build(List.of(this));
        }
        return arguments;
    }

    /** The keys of a call of {@code requests}: theirs, in order. */
    public static byte[][] keysOf(List<ScriptCall> requests) {
        if (requests.size() == 1) {
            return requests.get(0).keys;
        }
        int count = 0;
        for (ScriptCall r : requests) {
            count += r.keys.length;
        }
        byte[][] all = new byte[count][];
        int at = 0;
        for (ScriptCall r : requests) {
            System.arraycopy(r.keys, 0, all, at, r.keys.length);
            at += r.keys.length;
        }
        return all;
    }

    /**
     * The arguments of a call of {@code requests}, decided in this order; the header (time, least
     * key lifetime) is the first request's, which must be every request's.
     */
    public static byte[][] argumentsOf(List<ScriptCall> requests) {
        return requests.size() == 1 ? requests.get(0).arguments() : build(requests);
    }

    private static byte[][] build(List<ScriptCall> requests) {
        List<Kind> distinct = new ArrayList<>(4);
        int[][] kindIndexes = new int[requests.size()][];
        for (int r = 0; r < requests.size(); r++) {
            Kind[] own = requests.get(r).kinds;
            int[] indexes = new int[own.length];
            for (int i = 0; i < own.length; i++) {
                int found = distinct.indexOf(own[i]);
                if (found < 0) {
                    found = distinct.size();
                    distinct.add(own[i]);
                }
                indexes[i] = found + 1; // the script counts kinds from 1
            }
            kindIndexes[r] = indexes;
        }
        int firstRequest = HEADER_ARGUMENTS + 1 + ARGUMENTS_PER_KIND * distinct.size();
        byte[][] arguments = new byte[firstRequest + requests.size()][];
        ScriptCall first = requests.get(0);
        arguments[0] = first.now;
        arguments[1] = first.minimumKeyTtl;
        arguments[2] = distinct.size() < SINGLE.length ? SINGLE[distinct.size()] : number(distinct.size());
        for (int k = 0; k < distinct.size(); k++) {
            distinct.get(k).writeTo(arguments, HEADER_ARGUMENTS + 1 + ARGUMENTS_PER_KIND * k);
        }
        for (int r = 0; r < requests.size(); r++) {
            arguments[firstRequest + r] = requestArgument(requests.get(r).mode, kindIndexes[r]);
        }
        return arguments;
    }

    /** A request's argument: its kinds joined by ',', after its mode's mark ('?' a peek, '!' a refund). */
    private static byte[] requestArgument(Mode mode, int[] kindIndexes) {
        if (mode == Mode.CHARGE && kindIndexes.length == 1 && kindIndexes[0] < SINGLE.length) {
            return SINGLE[kindIndexes[0]];
        }
        StringBuilder text = new StringBuilder(mode.mark);
        for (int i = 0; i < kindIndexes.length; i++) {
            if (i > 0) {
                text.append(',');
            }
            text.append(kindIndexes[i]);
        }
        return ascii(text.toString());
    }

    /** {@code value} in decimal digits, as the script reads numbers. */
    public static byte[] number(long value) {
        return ascii(Long.toString(value));
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}

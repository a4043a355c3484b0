package dev.retrysafe.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded source of hostile input for fuzz tests: strings that break naive parsers (control
 * characters, quotes, separators, surrogates, huge numbers, long runs), JSON values of every type,
 * and mutations of a valid JSON document. Everything it makes follows from its seed, so a failure
 * is reproduced by running again with that seed: {@link #run} names it in the failure, and
 * {@code -Dretrysafe.fuzz.seed=N} makes {@link #seeds} return only {@code N}.
 *
 * <p>Not threadsafe: one instance per test thread.
 */
public final class Fuzz {

    /** The system property that replaces the default seeds with one. */
    public static final String SEED_PROPERTY = "retrysafe.fuzz.seed";

    /** Pieces that parsers of headers, numbers, ids and JSON have tripped over somewhere. */
    private static final List<String> NASTY = List.of(
            "",
            " ",
            "\t",
            "\r\n",
            "\u0000",
            "\u007f",
            "\u00ff",
            "\u2028",
            "\ufeff",
            "\ud800",
            "\udfff",
            "\ud83d\ude00",
            "\"",
            "'",
            "\\",
            "\\u0000",
            ";",
            ",",
            "=",
            ":",
            "?",
            "/",
            "%",
            "%00",
            "%2F",
            "%ZZ",
            "..",
            "../",
            "*",
            "-",
            "+",
            "0",
            "-0",
            "00",
            "01",
            "1e999",
            "-1",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775809",
            "NaN",
            "Infinity",
            "1.5",
            "0x10",
            "1_000",
            "true",
            "null",
            "{}",
            "[]",
            "{",
            "]",
            "<script>",
            "' OR '1'='1",
            "${jndi:ldap://127.0.0.1/a}",
            "evt_",
            "pay_",
            "whsec_",
            "v1,",
            "Bearer",
            "Basic",
            "r=0;t=1",
            "\"a\";r=1",
            ":YWJj:",
            "@1700000000",
            "2026-13-45T25:61:61Z",
            "Fri, 31 Dec 9999 23:59:59 GMT");

    private final long seed;
    private final Random random;

    /** A generator for {@code seed}. */
    public Fuzz(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
    }

    /** The seeds a fuzz test runs with: {@code defaults}, or only the one the system property names. */
    public static List<Long> seeds(long... defaults) {
        String forced = System.getProperty(SEED_PROPERTY);
        if (forced != null && !forced.isBlank()) {
            return List.of(Long.parseLong(forced.strip()));
        }
        List<Long> seeds = new ArrayList<>();
        for (long s : defaults) {
            seeds.add(s);
        }
        return seeds;
    }

    /** One round of a fuzz test. */
    @FunctionalInterface
    public interface Round {
        /** Makes input with {@code fuzz} and checks what it did; throws to fail. */
        void run(Fuzz fuzz, int round) throws Exception;
    }

    /**
     * Runs {@code rounds} rounds on one generator seeded with {@code seed}; a failing round fails
     * with an {@link AssertionError} that names the seed and the round, and how to repeat it.
     */
    public static void run(long seed, int rounds, Round round) {
        Fuzz fuzz = new Fuzz(seed);
        for (int i = 0; i < rounds; i++) {
            try {
                round.run(fuzz, i);
            } catch (Exception | AssertionError e) {
                throw new AssertionError(
                        "fuzz seed " + seed + ", round " + i + " failed (repeat with -D" + SEED_PROPERTY + "=" + seed
                                + "): " + e.getMessage(),
                        e);
            }
        }
    }

    /** This generator's seed. */
    public long seed() {
        return seed;
    }

    /** A uniformly random int in {@code [0, bound)}. */
    public int nextInt(int bound) {
        return random.nextInt(bound);
    }

    /** True with probability {@code p}. */
    public boolean chance(double p) {
        return random.nextDouble() < p;
    }

    /** One of {@code options}. */
    @SafeVarargs
    public final <T> T oneOf(T... options) {
        return options[random.nextInt(options.length)];
    }

    /** One of {@code options}. */
    public <T> T oneOf(List<T> options) {
        return options.get(random.nextInt(options.size()));
    }

    /** A hostile string of at most about {@code maxLength} characters, any characters at all. */
    public String string(int maxLength) {
        return switch (random.nextInt(6)) {
            case 0 -> oneOf(NASTY);
            case 1 -> randomChars(random.nextInt(maxLength + 1), 0, 0x10000);
            case 2 -> randomChars(random.nextInt(maxLength + 1), 0x20, 0x7f);
            case 3 -> oneOf(NASTY) + randomChars(random.nextInt(8), 0x20, 0x7f) + oneOf(NASTY);
            case 4 -> "x".repeat(Math.max(0, maxLength - random.nextInt(3)) + random.nextInt(3));
            default -> splice(maxLength);
        };
    }

    /** A hostile string made only of visible ASCII and spaces: what survives in an HTTP header value. */
    public String headerValue(int maxLength) {
        String s = string(maxLength);
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : "a \";,".charAt(random.nextInt(5)));
        }
        return b.toString().strip();
    }

    /** A string safe to put in a URL path segment or query value (percent-encoded as needed). */
    public String urlPart(int maxLength) {
        return java.net.URLEncoder.encode(string(maxLength), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A JSON value of any type (as JSON text), nested at most {@code depth} deep. */
    public String jsonValue(int depth) {
        int kind = random.nextInt(depth > 0 ? 9 : 7);
        return switch (kind) {
            case 0 -> "null";
            case 1 -> oneOf("true", "false");
            case 2 -> Long.toString(random.nextLong());
            case 3 -> oneOf("0", "-1", "1e400", "-1e400", "0.5", "1E2", "99999999999999999999999", "-0", "1.0");
            case 4, 5 -> jsonString(string(40));
            case 6 -> jsonString("x".repeat(random.nextInt(5000)));
            case 7 -> {
                StringBuilder b = new StringBuilder("[");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    b.append(i == 0 ? "" : ",").append(jsonValue(depth - 1));
                }
                yield b.append(']').toString();
            }
            default -> {
                StringBuilder b = new StringBuilder("{");
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    b.append(i == 0 ? "" : ",")
                            .append(jsonString(string(12)))
                            .append(':')
                            .append(jsonValue(depth - 1));
                }
                yield b.append('}').toString();
            }
        };
    }

    /**
     * A mutation of {@code fields} (a JSON object given as field name to JSON value text): a field
     * dropped, retyped, added, duplicated, or the whole text broken, truncated or nested deeply.
     */
    public String mutateObject(List<String[]> fields) {
        List<String[]> out = new ArrayList<>();
        for (String[] f : fields) {
            out.add(f.clone());
        }
        int changes = 1 + random.nextInt(3);
        for (int c = 0; c < changes; c++) {
            switch (random.nextInt(7)) {
                case 0 -> {
                    if (!out.isEmpty()) {
                        out.remove(random.nextInt(out.size()));
                    }
                }
                case 1, 2 -> {
                    if (!out.isEmpty()) {
                        out.get(random.nextInt(out.size()))[1] = jsonValue(2);
                    }
                }
                case 3 -> out.add(new String[] {string(12), jsonValue(1)});
                case 4 -> {
                    if (!out.isEmpty()) {
                        out.add(out.get(random.nextInt(out.size())).clone()); // a duplicate key
                    }
                }
                default -> {
                    // leave this change out: mutations of one field are the common case
                }
            }
        }
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < out.size(); i++) {
            b.append(i == 0 ? "" : ",")
                    .append(jsonString(out.get(i)[0]))
                    .append(':')
                    .append(out.get(i)[1]);
        }
        String json = b.append('}').toString();
        return switch (random.nextInt(10)) {
            case 0 -> json.substring(0, random.nextInt(json.length() + 1)); // truncated
            case 1 -> "[".repeat(2000 + random.nextInt(3000)); // deeply nested, never closed
            case 2 -> jsonValue(2); // not an object at all
            case 3 -> json + oneOf(NASTY); // trailing garbage
            default -> json;
        };
    }

    /** {@code text} as a JSON string literal (every character escaped that JSON requires). */
    public static String jsonString(String text) {
        StringBuilder b = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private String randomChars(int length, int from, int to) {
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            b.append((char) (from + random.nextInt(to - from)));
        }
        return b.toString();
    }

    private String splice(int maxLength) {
        StringBuilder b = new StringBuilder();
        while (b.length() < maxLength && random.nextInt(4) != 0) {
            b.append(oneOf(NASTY));
        }
        return b.toString();
    }
}

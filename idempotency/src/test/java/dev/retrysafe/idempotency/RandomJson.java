package dev.retrysafe.idempotency;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded generator of JSON values and of many textual spellings of one value: shuffled members,
 * random whitespace, random escapes and exponent spellings. Values are trees of
 * {@code Map<String,Object>}, {@code List<Object>}, {@link Str}, {@link Num}, {@link Boolean}
 * and {@link #NULL}.
 */
final class RandomJson {

    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    /** A string value; lone surrogates are allowed and always written escaped. */
    record Str(String value) {}

    /** A number: mantissa as written, and an optional exponent value. */
    record Num(String mantissa, Integer exponent) {}

    private RandomJson() {}

    static Object value(Random r, int depth) {
        int kind = r.nextInt(depth >= 5 ? 4 : 6);
        return switch (kind) {
            case 0 -> new Str(string(r));
            case 1 -> number(r);
            case 2 -> r.nextBoolean();
            case 3 -> r.nextInt(4) == 0 ? NULL : new Str(string(r));
            case 4 -> {
                List<Object> list = new ArrayList<>();
                int n = r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    list.add(value(r, depth + 1));
                }
                yield list;
            }
            default -> {
                Map<String, Object> map = new LinkedHashMap<>();
                int n = r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    map.put(string(r), value(r, depth + 1));
                }
                yield map;
            }
        };
    }

    static String string(Random r) {
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(8);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(8)) {
                case 0 -> s.append((char) r.nextInt(0x20));
                case 1 -> s.append("\"\\/".charAt(r.nextInt(3)));
                case 2 -> s.append((char) (0xA0 + r.nextInt(0xD000)));
                case 3 -> s.appendCodePoint(0x10000 + r.nextInt(0x10FFFF - 0x10000));
                case 4 -> s.append((char) (0xD800 + r.nextInt(0x800))); // lone surrogate
                default -> s.append((char) (0x20 + r.nextInt(0x5F)));
            }
        }
        return s.toString();
    }

    static Num number(Random r) {
        StringBuilder m = new StringBuilder();
        if (r.nextBoolean()) {
            m.append('-');
        }
        m.append(r.nextInt(5) == 0 ? "0" : String.valueOf(1 + r.nextInt(100_000)));
        if (r.nextBoolean()) {
            m.append('.').append(r.nextInt(1000));
        }
        return new Num(m.toString(), r.nextBoolean() ? r.nextInt(-40, 40) : null);
    }

    /** One random spelling of {@code value}. */
    static String write(Object value, Random r) {
        StringBuilder out = new StringBuilder();
        space(out, r);
        write(out, value, r);
        space(out, r);
        return out.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(StringBuilder out, Object value, Random r) {
        if (value instanceof Map<?, ?> map) {
            List<Map.Entry<String, Object>> entries = new ArrayList<>(((Map<String, Object>) map).entrySet());
            Collections.shuffle(entries, r);
            out.append('{');
            for (int i = 0; i < entries.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                space(out, r);
                writeString(out, entries.get(i).getKey(), r);
                space(out, r);
                out.append(':');
                space(out, r);
                write(out, entries.get(i).getValue(), r);
                space(out, r);
            }
            space(out, r);
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                space(out, r);
                write(out, list.get(i), r);
                space(out, r);
            }
            out.append(']');
        } else if (value instanceof Str s) {
            writeString(out, s.value(), r);
        } else if (value instanceof Num n) {
            out.append(n.mantissa());
            if (n.exponent() != null) {
                int e = n.exponent();
                out.append(r.nextBoolean() ? 'e' : 'E');
                out.append(e < 0 ? "-" : r.nextBoolean() ? "+" : "");
                out.append("0".repeat(r.nextInt(3))).append(Math.abs(e));
            }
        } else {
            out.append(value);
        }
    }

    private static void writeString(StringBuilder out, String s, Random r) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean pair =
                    Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
            boolean mustEscape = c < 0x20 || c == '"' || c == '\\' || (Character.isSurrogate(c) && !pair);
            if (pair) {
                // half a pair written literally would not survive UTF-8: both halves one way
                if (r.nextBoolean()) {
                    out.append(c).append(s.charAt(++i));
                } else {
                    escape(out, c, r);
                    escape(out, s.charAt(++i), r);
                }
            } else if (mustEscape || r.nextInt(4) == 0) {
                escape(out, c, r);
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    private static void escape(StringBuilder out, char c, Random r) {
        String shortForm = switch (c) {
            case '"' -> "\\\"";
            case '\\' -> "\\\\";
            case '/' -> "\\/";
            case '\b' -> "\\b";
            case '\f' -> "\\f";
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> null;
        };
        if (shortForm != null && r.nextBoolean()) {
            out.append(shortForm);
        } else {
            String hex = String.format("%04x", (int) c);
            out.append("\\u").append(r.nextBoolean() ? hex : hex.toUpperCase(java.util.Locale.ROOT));
        }
    }

    private static void space(StringBuilder out, Random r) {
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
            out.append(" \t\n\r".charAt(r.nextInt(4)));
        }
    }

    /** A copy of {@code value} with one leaf changed (or one element added to an empty container). */
    @SuppressWarnings("unchecked")
    static Object mutate(Object value, Random r) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) map);
            if (copy.isEmpty()) {
                copy.put("added", NULL);
            } else {
                List<String> keys = new ArrayList<>(copy.keySet());
                String key = keys.get(r.nextInt(keys.size()));
                copy.put(key, mutate(copy.get(key), r));
            }
            return copy;
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list);
            if (copy.isEmpty()) {
                copy.add(NULL);
            } else {
                int i = r.nextInt(copy.size());
                copy.set(i, mutate(copy.get(i), r));
            }
            return copy;
        }
        if (value instanceof Str s) {
            return new Str(s.value() + "x");
        }
        if (value instanceof Num n) {
            return new Num(n.mantissa() + (n.mantissa().contains(".") ? "1" : ".5"), n.exponent());
        }
        if (value instanceof Boolean b) {
            return !b;
        }
        return new Str("was null");
    }
}

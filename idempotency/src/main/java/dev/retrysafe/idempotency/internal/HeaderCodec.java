package dev.retrysafe.idempotency.internal;

import dev.retrysafe.idempotency.HeaderField;
import java.util.ArrayList;
import java.util.List;

/**
 * The text form of stored headers: one {@code name:value} line per field, lines joined by LF,
 * with {@code \}, LF and CR in values escaped as {@code \\}, {@code \n} and {@code \r}. Names are
 * HTTP tokens, which contain none of these nor {@code :}, so the first colon always ends the
 * name. Stateless and threadsafe.
 */
public final class HeaderCodec {

    private HeaderCodec() {}

    /** The text form of {@code fields}; the empty string for no fields. */
    public static String encode(List<HeaderField> fields) {
        StringBuilder out = new StringBuilder();
        for (HeaderField field : fields) {
            if (!out.isEmpty()) {
                out.append('\n');
            }
            out.append(field.name()).append(':');
            String value = field.value();
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                switch (c) {
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    default -> out.append(c);
                }
            }
        }
        return out.toString();
    }

    /**
     * The fields of a text made by {@link #encode}.
     *
     * @throws IllegalArgumentException if {@code text} is not in that form (a corrupted row)
     */
    public static List<HeaderField> decode(String text) {
        List<HeaderField> fields = new ArrayList<>();
        if (text.isEmpty()) {
            return fields;
        }
        for (String line : text.split("\n", -1)) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("stored header line has no name: \"" + line + "\"");
            }
            fields.add(new HeaderField(line.substring(0, colon), unescape(line.substring(colon + 1))));
        }
        return fields;
    }

    private static String unescape(String escaped) {
        StringBuilder out = new StringBuilder(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (i + 1 == escaped.length()) {
                throw new IllegalArgumentException("stored header value ends inside an escape: \"" + escaped + "\"");
            }
            char e = escaped.charAt(++i);
            switch (e) {
                case '\\' -> out.append('\\');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                default ->
                    throw new IllegalArgumentException(
                            "stored header value has unknown escape \\" + e + ": \"" + escaped + "\"");
            }
        }
        return out.toString();
    }
}

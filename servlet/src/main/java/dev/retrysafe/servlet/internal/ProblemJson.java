package dev.retrysafe.servlet.internal;

import dev.retrysafe.servlet.ProblemType;
import java.nio.charset.StandardCharsets;

/**
 * Writes RFC 9457 problem documents. A tiny JSON writer of its own: the servlet module takes no
 * JSON library. Stateless and threadsafe.
 */
final class ProblemJson {

    static final String MEDIA_TYPE = "application/problem+json";

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private ProblemJson() {
    }

    /** {@code {"type":…,"title":…,"status":…,"detail":…,"retryable":…}} in UTF-8. */
    static byte[] render(ProblemType problem, String typeBase, String detail) {
        return render(problem, typeBase, detail, java.util.Map.of());
    }

    /**
     * The same with extension members after {@code retryable}, in {@code extensions}' order;
     * values are strings or numbers.
     */
    static byte[] render(ProblemType problem, String typeBase, String detail, java.util.Map<String, Object> extensions) {
        StringBuilder json = new StringBuilder(256);
        json.append("{\"type\":");
        string(json, problem.type(typeBase));
        json.append(",\"title\":");
        string(json, problem.title());
        json.append(",\"status\":").append(problem.status());
        json.append(",\"detail\":");
        string(json, detail);
        json.append(",\"retryable\":").append(problem.retryable());
        for (java.util.Map.Entry<String, Object> member : extensions.entrySet()) {
            json.append(',');
            string(json, member.getKey());
            json.append(':');
            if (member.getValue() instanceof Number number) {
                json.append(number);
            } else {
                string(json, String.valueOf(member.getValue()));
            }
        }
        json.append('}');
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Appends {@code s} as a JSON string; unpaired surrogates are escaped so UTF-8 stays lossless. */
    static void string(StringBuilder json, String s) {
        json.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c == '\n') {
                json.append("\\n");
            } else if (c == '\r') {
                json.append("\\r");
            } else if (c == '\t') {
                json.append("\\t");
            } else if (c < 0x20 || c == 0x2028 || c == 0x2029 || Character.isSurrogate(c) && !pairAt(s, i)) {
                json.append("\\u").append(HEX[c >> 12 & 0xF]).append(HEX[c >> 8 & 0xF])
                        .append(HEX[c >> 4 & 0xF]).append(HEX[c & 0xF]);
            } else if (Character.isHighSurrogate(c)) {
                json.append(c).append(s.charAt(++i));
            } else {
                json.append(c);
            }
        }
        json.append('"');
    }

    private static boolean pairAt(String s, int i) {
        return Character.isHighSurrogate(s.charAt(i)) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    }
}

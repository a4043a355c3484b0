package dev.retrysafe.servlet.internal;

import dev.retrysafe.common.JsonStrings;
import dev.retrysafe.servlet.ProblemType;
import java.nio.charset.StandardCharsets;

/**
 * Writes RFC 9457 problem documents. A tiny JSON writer of its own: the servlet module takes no
 * JSON library; strings are escaped by Retrysafe's one escaper, in its document form. Stateless
 * and threadsafe.
 */
final class ProblemJson {

    static final String MEDIA_TYPE = "application/problem+json";

    private ProblemJson() {}

    /** {@code {"type":…,"title":…,"status":…,"detail":…,"retryable":…}} in UTF-8. */
    static byte[] render(ProblemType problem, String typeBase, String detail) {
        return render(problem, typeBase, detail, java.util.Map.of());
    }

    /**
     * The same with extension members after {@code retryable}, in {@code extensions}' order;
     * values are strings or numbers.
     */
    static byte[] render(
            ProblemType problem, String typeBase, String detail, java.util.Map<String, Object> extensions) {
        StringBuilder json = new StringBuilder(256);
        json.append("{\"type\":");
        JsonStrings.appendDocument(json, problem.type(typeBase));
        json.append(",\"title\":");
        JsonStrings.appendDocument(json, problem.title());
        json.append(",\"status\":").append(problem.status());
        json.append(",\"detail\":");
        JsonStrings.appendDocument(json, detail);
        json.append(",\"retryable\":").append(problem.retryable());
        for (java.util.Map.Entry<String, Object> member : extensions.entrySet()) {
            json.append(',');
            JsonStrings.appendDocument(json, member.getKey());
            json.append(':');
            if (member.getValue() instanceof Number number) {
                json.append(number);
            } else {
                JsonStrings.appendDocument(json, String.valueOf(member.getValue()));
            }
        }
        json.append('}');
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }
}

package dev.retrysafe.server.http;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

/**
 * Reads a request body that must be one JSON object: checks the content type (415), the size
 * (413, also for bodies without a {@code Content-Length}), the encoding (UTF-8 only, 400) and the
 * syntax (400), in that order.
 */
public final class JsonBody {

    /** The outcome of reading a body. */
    public sealed interface Result permits Parsed, Rejected {}

    /** The body, a JSON object. @param object the parsed body */
    public record Parsed(ObjectNode object) implements Result {}

    /** The body cannot be used. @param problem what to answer */
    public record Rejected(Problem problem) implements Result {}

    private JsonBody() {}

    /** Reads the body of {@code ctx}, accepting at most {@code maxBytes}. */
    public static Result read(Context ctx, int maxBytes) throws IOException {
        String contentType = ctx.req().getContentType();
        if (!isJson(contentType)) {
            return new Rejected(Problem.of(
                    ProblemType.UNSUPPORTED_MEDIA_TYPE,
                    "Expected Content-Type: application/json, got "
                            + (contentType == null ? "none" : "'" + contentType + "'") + "."));
        }
        long declared = ctx.req().getContentLengthLong();
        byte[] bytes;
        try (InputStream in = ctx.req().getInputStream()) {
            // one byte more than allowed tells a too-large chunked body from one that fits exactly
            bytes = declared > maxBytes ? new byte[0] : in.readNBytes(maxBytes + 1);
            if (declared > maxBytes || bytes.length > maxBytes) {
                // drained within a bound: a client still sending would otherwise see a connection
                // reset instead of the 413
                drain(in, 4L * maxBytes);
                return new Rejected(tooLarge(maxBytes));
            }
        }
        StrictUtf8.Decoded decoded = StrictUtf8.decode(bytes);
        if (decoded instanceof StrictUtf8.NotUtf8 notUtf8) {
            return new Rejected(
                    Problem.of(ProblemType.MALFORMED_JSON, "The body must be UTF-8: " + notUtf8.reason() + "."));
        }
        String text = ((StrictUtf8.Text) decoded).text();
        JsonNode node;
        try {
            // characters, not bytes: from bytes Jackson would detect UTF-16 and UTF-32 and accept them
            node = Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            return new Rejected(Problem.of(ProblemType.MALFORMED_JSON, malformed(e, text)));
        }
        if (node == null || node.isMissingNode()) {
            return new Rejected(Problem.of(ProblemType.MALFORMED_JSON, "The body is empty; expected a JSON object."));
        }
        if (!(node instanceof ObjectNode object)) {
            return new Rejected(Problem.of(
                    ProblemType.MALFORMED_JSON,
                    "The body must be a JSON object, got "
                            + node.getNodeType().name().toLowerCase(Locale.ROOT) + "."));
        }
        return new Parsed(object);
    }

    /**
     * The detail of a body the parser refused, in words: where it broke and what was expected
     * there, never the parser's own message (its class names and settings are no business of a
     * client's).
     */
    static String malformed(JsonProcessingException e, String text) {
        if (e instanceof StreamConstraintsException) {
            StreamReadConstraints limits = Json.MAPPER.getFactory().streamReadConstraints();
            String what = String.valueOf(e.getOriginalMessage());
            if (what.contains("nesting depth")) {
                return "The body is not accepted: it nests objects and arrays more than " + limits.getMaxNestingDepth()
                        + " levels deep.";
            }
            if (what.contains("Number value length")) {
                return "The body is not accepted: it holds a number longer than " + limits.getMaxNumberLength()
                        + " characters.";
            }
            return "The body is not accepted: it exceeds a limit of the JSON reader.";
        }
        String where = JsonSyntax.explain(text);
        if (where != null) {
            return "The body is not valid JSON: " + where + ".";
        }
        JsonLocation at = e.getLocation();
        return "The body is not valid JSON"
                + (at == null || at.getLineNr() < 1
                        ? "."
                        : " at line " + at.getLineNr() + ", column " + at.getColumnNr() + ".");
    }

    private static void drain(InputStream in, long limit) throws IOException {
        byte[] chunk = new byte[8192];
        long left = limit;
        int n;
        while (left > 0 && (n = in.read(chunk, 0, (int) Math.min(chunk.length, left))) > 0) {
            left -= n;
        }
    }

    /** The problem for a body over {@code maxBytes}. */
    public static Problem tooLarge(int maxBytes) {
        return Problem.of(ProblemType.REQUEST_TOO_LARGE, "The request body is larger than " + maxBytes + " bytes.");
    }

    /** Whether {@code contentType} is {@code application/json}, optionally with a UTF-8 charset. */
    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        String[] parts = contentType.split(";");
        if (parts.length == 0 || !parts[0].strip().equalsIgnoreCase("application/json")) {
            return false;
        }
        for (int i = 1; i < parts.length; i++) {
            String[] param = parts[i].split("=", 2);
            if (param[0].strip().equalsIgnoreCase("charset")
                    && (param.length < 2 || !param[1].strip().replace("\"", "").equalsIgnoreCase("utf-8"))) {
                return false; // JSON is UTF-8 (RFC 8259); another charset would be misread
            }
        }
        return true;
    }
}

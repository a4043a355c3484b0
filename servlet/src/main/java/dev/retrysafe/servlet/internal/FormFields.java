package dev.retrysafe.servlet.internal;

import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Parses an {@code application/x-www-form-urlencoded} body. Stateless and threadsafe. */
final class FormFields {

    private FormFields() {}

    /** The fields of {@code body} in order; malformed escapes are kept literally. */
    static Map<String, List<String>> parse(byte[] body, Charset charset) {
        Map<String, List<String>> fields = new LinkedHashMap<>();
        // the urlencoded alphabet is ASCII, so ISO-8859-1 maps the bytes one to one
        String text = new String(body, StandardCharsets.ISO_8859_1);
        for (String pair : text.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq), charset);
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1), charset);
            fields.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
        return fields;
    }

    private static String decode(String encoded, Charset charset) {
        String reencoded = new String(encoded.getBytes(StandardCharsets.ISO_8859_1), charset);
        try {
            return URLDecoder.decode(reencoded, charset);
        } catch (IllegalArgumentException malformed) {
            return reencoded;
        }
    }
}

package dev.retrysafe.server.http;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Decodes a request body as UTF-8 and nothing else (RFC 8259, section 8.1), so that the JSON
 * parser is handed characters and cannot guess another encoding from the first bytes. Refused,
 * with what was found where: a UTF-16 or UTF-32 byte order mark; a NUL byte, which JSON never has
 * and UTF-16 or UTF-32 text has in every ASCII character; a byte sequence UTF-8 does not allow
 * (a stray continuation byte, a truncated sequence, an overlong form, an encoded surrogate, a
 * code point past U+10FFFF). A UTF-8 byte order mark is dropped, as RFC 8259 lets a parser do.
 * Threadsafe (no state).
 */
final class StrictUtf8 {

    /** The outcome of decoding. */
    sealed interface Decoded permits Text, NotUtf8 {}

    /** The body as characters, without a UTF-8 byte order mark. @param text the characters */
    record Text(String text) implements Decoded {}

    /** The body is not UTF-8. @param reason what was found where, e.g. {@code an invalid byte 0xC0 at offset 12} */
    record NotUtf8(String reason) implements Decoded {}

    private StrictUtf8() {}

    /** {@code bytes} as UTF-8 text, or why they are not. */
    static Decoded decode(byte[] bytes) {
        String bom = foreignByteOrderMark(bytes);
        if (bom != null) {
            return new NotUtf8("it starts with a " + bom + " byte order mark");
        }
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                return new NotUtf8("a NUL byte at offset " + i + " (JSON has none; UTF-16 and UTF-32 text does)");
            }
        }
        int start = startsWith(bytes, 0xEF, 0xBB, 0xBF) ? 3 : 0;
        ByteBuffer in = ByteBuffer.wrap(bytes, start, bytes.length - start);
        CharBuffer out = CharBuffer.allocate(bytes.length); // UTF-8 never gives more chars than bytes
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            // the buffer stops at the first byte of the sequence it refused
            return new NotUtf8(String.format(
                    Locale.ROOT, "an invalid byte 0x%02X at offset %d", bytes[in.position()] & 0xFF, in.position()));
        }
        return new Text(out.flip().toString());
    }

    private static @Nullable String foreignByteOrderMark(byte[] b) {
        // UTF-32LE's mark begins with UTF-16LE's, so it is looked for first
        if (startsWith(b, 0xFF, 0xFE, 0x00, 0x00)) {
            return "UTF-32 (little-endian)";
        }
        if (startsWith(b, 0x00, 0x00, 0xFE, 0xFF)) {
            return "UTF-32 (big-endian)";
        }
        if (startsWith(b, 0xFF, 0xFE)) {
            return "UTF-16 (little-endian)";
        }
        if (startsWith(b, 0xFE, 0xFF)) {
            return "UTF-16 (big-endian)";
        }
        return null;
    }

    private static boolean startsWith(byte[] b, int... prefix) {
        if (b.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if ((b[i] & 0xFF) != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}

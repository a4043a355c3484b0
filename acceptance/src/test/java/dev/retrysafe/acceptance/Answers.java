package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** Reading and comparing the server's answers, as {@link PaymentsClient} returns them (bytes). */
final class Answers {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Answers() {}

    /** Whether the server says this answer is a stored one, replayed rather than made now. */
    static boolean replayed(HttpResponse<byte[]> r) {
        return r.headers()
                .firstValue("Idempotent-Replayed")
                .filter("true"::equals)
                .isPresent();
    }

    /** The body as JSON; fails with the status and body when it is not JSON. */
    static JsonNode json(HttpResponse<byte[]> r) {
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + text(r), e);
        }
    }

    /** Status and body, for assertion messages. */
    static String text(HttpResponse<byte[]> r) {
        return r.statusCode() + " " + new String(r.body(), StandardCharsets.UTF_8);
    }

    /** Status, body bytes, Content-Type and Location all equal: what "the same answer" means. */
    static void assertSameAnswer(HttpResponse<byte[]> actual, HttpResponse<byte[]> expected) {
        assertThat(actual.statusCode()).as(text(actual)).isEqualTo(expected.statusCode());
        assertThat(actual.body()).as("body bytes of %s", text(actual)).isEqualTo(expected.body());
        assertThat(actual.headers().firstValue("Content-Type"))
                .isEqualTo(expected.headers().firstValue("Content-Type"));
        assertThat(actual.headers().firstValue("Location"))
                .isEqualTo(expected.headers().firstValue("Location"));
    }
}

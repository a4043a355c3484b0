package dev.retrysafe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import dev.retrysafe.testkit.Fuzz;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The malformed-JSON detail says where a body broke and what was expected there, in words, and
 * never shows the parser's internals; the scanner that explains it refuses exactly what the
 * parser refuses.
 */
class JsonSyntaxTest {

    private static final int ROUNDS = 2000;
    /** What a parser's own message leaks: class names, settings, its source description, char codes. */
    private static final List<String> INTERNALS =
            List.of("jackson", "Jackson", "Source", "REDACTED", "StreamRead", "Feature", "`", "code 1", "(code");

    static Stream<Arguments> broken() {
        return Stream.of(
                Arguments.of(
                        "{\"amount\": 500,}",
                        "at line 1, column 16: expected a member name in double quotes, found '}'"),
                Arguments.of(
                        "{\"amount\" 500}", "at line 1, column 11: expected ':' after the member name, found '500'"),
                Arguments.of(
                        "{amount: 500}",
                        "at line 1, column 2: expected a member name in double quotes, found 'amount'"),
                Arguments.of(
                        "{\n  \"amount\": 500,\n  \"currency\": eur\n}",
                        "at line 3, column 15: expected a value (a string, number, object, array, true, false or null),"
                                + " found 'eur'"),
                Arguments.of(
                        "{\"amount\": 500",
                        "at line 1, column 15: expected ',' or '}' after the member's value, found the end of the body"),
                Arguments.of(
                        "{\"currency\": \"eur",
                        "at line 1, column 18: expected '\"' to close the string, found the end of the body"),
                Arguments.of(
                        "{\"a\": 1}}",
                        "at line 1, column 9: expected the end of the body after the JSON value, found '}'"),
                Arguments.of(
                        "{\"a\": 1, \"a\": 2}",
                        "at line 1, column 10: the member name \"a\" appears twice in one object"),
                Arguments.of(
                        "{\"a\": [1 2]}",
                        "at line 1, column 10: expected ',' or ']' after the array element, found '2'"),
                Arguments.of(
                        "{\"a\": 01}",
                        "at line 1, column 8: expected no digit after a leading 0 (numbers have no leading zeros), found '1'"),
                Arguments.of("{\"a\": 1.}", "at line 1, column 9: expected a digit after the decimal point, found '}'"),
                Arguments.of(
                        "{\"a\": \"x\ny\"}",
                        "at line 1, column 9: expected a character of the string (a control character must be escaped, as \\n), found the end of the line"),
                Arguments.of(
                        "{\"a\": \"\\q\"}",
                        "at line 1, column 9: expected an escape such as \\\" \\\\ \\n or \\u00e9 after the backslash, found 'q'"),
                Arguments.of(
                        "{\"a\": 'x'}",
                        "at line 1, column 7: expected a value (a string, number, object, array, true, false or null), found '''"),
                Arguments.of(
                        "{\"a\": NaN}",
                        "at line 1, column 7: expected a value (a string, number, object, array, true, false or null), found 'NaN'"),
                Arguments.of(
                        "{\"a\": 1} {}",
                        "at line 1, column 10: expected the end of the body after the JSON value, found '{'"));
    }

    @ParameterizedTest
    @MethodSource("broken")
    void saysWhereTheJsonBrokeAndWhatWasExpected(String body, String where) {
        JsonProcessingException refused = refusal(body);

        assertThat(refused).as("the parser refuses %s", body).isNotNull();
        String detail = JsonBody.malformed(refused, body);
        assertThat(detail).isEqualTo("The body is not valid JSON: " + where + ".");
        assertThat(INTERNALS).noneMatch(detail::contains);
    }

    @ParameterizedTest
    @MethodSource("limits")
    void aBodyOverAParserLimitIsNamedInWords(String body, String detail) {
        JsonProcessingException refused = refusal(body);

        assertThat(refused).isInstanceOf(StreamConstraintsException.class);
        assertThat(JsonBody.malformed(refused, body)).isEqualTo(detail);
    }

    static Stream<Arguments> limits() {
        return Stream.of(
                Arguments.of(
                        "{\"a\": " + "[".repeat(1200) + "}",
                        "The body is not accepted: it nests objects and arrays more than 1000 levels deep."),
                Arguments.of(
                        "{\"a\": " + "1".repeat(1200) + "}",
                        "The body is not accepted: it holds a number longer than 1000 characters."));
    }

    static List<Long> seeds() {
        return Fuzz.seeds(71, 72, 73);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void theScannerRefusesExactlyWhatTheParserRefuses(long seed) {
        List<String[]> payment = List.of(
                new String[] {"amount", "500"},
                new String[] {"currency", "\"eur\""},
                new String[] {"description", "\"tea, \\\"green\\\"\\n\""},
                new String[] {"metadata", "{\"a\": [1, 2.5e3, -0, true, null]}"});
        Fuzz.run(seed, ROUNDS, (fuzz, round) -> {
            String body = fuzz.mutateObject(payment);
            if (fuzz.chance(0.5) && !body.isEmpty()) {
                // one character dropped, doubled or replaced by JSON punctuation
                int at = fuzz.nextInt(body.length());
                String with = fuzz.oneOf(
                        "",
                        "" + body.charAt(at) + body.charAt(at),
                        "{",
                        "}",
                        "[",
                        "]",
                        ",",
                        ":",
                        "\"",
                        "\\",
                        "x",
                        "\n");
                body = body.substring(0, at) + with + body.substring(at + 1);
            }
            JsonProcessingException refused = refusal(body);
            if (refused instanceof StreamConstraintsException || body.isBlank()) {
                return; // limits are the parser's alone; an empty body is its own problem
            }
            String explained = JsonSyntax.explain(body);
            if (refused == null) {
                assertThat(explained).as("a body the parser takes: %s", body).isNull();
            } else {
                assertThat(explained)
                        .as("a body the parser refuses (%s): %s", refused.getOriginalMessage(), body)
                        .isNotNull();
                String detail = JsonBody.malformed(refused, body);
                assertThat(detail).as(body).matches("(?s)The body is not valid JSON: at line \\d+, column \\d+: .*\\.");
                String shown = body;
                assertThat(INTERNALS).as(detail).noneMatch(s -> detail.contains(s) && !shown.contains(s));
            }
        });
    }

    private static @Nullable JsonProcessingException refusal(String body) {
        try {
            Json.MAPPER.readTree(body);
            return null;
        } catch (JsonProcessingException e) {
            return e;
        }
    }
}

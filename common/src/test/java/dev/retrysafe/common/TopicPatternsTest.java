package dev.retrysafe.common;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.Fuzz;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class TopicPatternsTest {

    @ParameterizedTest
    @CsvSource({
        "*, payment.succeeded, true",
        "*, job.updated, true",
        "payment.succeeded, payment.succeeded, true",
        "payment.succeeded, payment.failed, false",
        "payment.*, payment.succeeded, true",
        "payment.*, payment.card.declined, true",
        "payment.*, payment, false",
        "payment.*, payments.succeeded, false",
        "payment.*, refund.created, false",
        "webhook_endpoint.*, webhook_endpoint.disabled, true",
        "report.succeeded.*, report.succeeded, false",
    })
    void matchesTopicsPrefixesAndEverything(String pattern, String topic, boolean matches) {
        assertThat(TopicPatterns.isPattern(pattern)).isTrue();
        assertThat(TopicPatterns.matches(pattern, topic)).isEqualTo(matches);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                ".",
                "payment.",
                ".payment",
                "payment..succeeded",
                "Payment.Succeeded",
                "*.succeeded",
                "payment.*.x",
                "payment*",
                "payment.**",
                "**",
                "payment succeeded",
                "paymént"
            })
    void refusesWhatIsNeitherATopicNorAPrefixNorEverything(String pattern) {
        assertThat(TopicPatterns.isPattern(pattern)).isFalse();
    }

    static List<Long> seeds() {
        return Fuzz.seeds(41, 42);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void agreesWithTheGrammarWrittenAsARegularExpression(long seed) {
        Pattern grammar = Pattern.compile("\\*|[a-z0-9_]+(\\.[a-z0-9_]+)*(\\.\\*)?");
        Fuzz.run(seed, 5000, (fuzz, round) -> {
            String pattern = word(fuzz, "ab.*_X");
            String topic = word(fuzz, "ab._");
            assertThat(TopicPatterns.isPattern(pattern))
                    .as(pattern)
                    .isEqualTo(grammar.matcher(pattern).matches());
            if (TopicPatterns.isPattern(pattern) && TopicPatterns.isTopic(topic)) {
                // what "payment.*" means: that prefix, its dot, then at least one more word
                String expected = pattern.equals("*")
                        ? ".+"
                        : pattern.endsWith(".*")
                                ? Pattern.quote(pattern.substring(0, pattern.length() - 1)) + ".+"
                                : Pattern.quote(pattern);
                assertThat(TopicPatterns.matches(pattern, topic))
                        .as("%s against %s", pattern, topic)
                        .isEqualTo(topic.matches(expected));
            }
        });
    }

    private static String word(Fuzz fuzz, String alphabet) {
        StringBuilder b = new StringBuilder();
        for (int i = fuzz.nextInt(7); i > 0; i--) {
            b.append(alphabet.charAt(fuzz.nextInt(alphabet.length())));
        }
        return b.toString();
    }
}

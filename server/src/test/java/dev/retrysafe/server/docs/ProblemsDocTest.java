package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.http.ProblemType;
import dev.retrysafe.testkit.RepositoryRoot;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/problems.md} documents exactly the server's problem types: a section
 * {@code ### `slug`} for each, whose first line is {@code `status` · title} as the server answers.
 */
class ProblemsDocTest {

    private static final Pattern SECTION = Pattern.compile("(?m)^### `([^`]+)`\\n\\n(.*)$");

    @Test
    void everyProblemTypeHasASectionWithItsStatusAndTitleAndNoOtherSectionExists() throws Exception {
        // given
        Map<String, String> documented = new LinkedHashMap<>();
        Matcher m = SECTION.matcher(Files.readString(RepositoryRoot.doc("problems.md")));
        while (m.find()) {
            assertThat(documented.put(m.group(1), m.group(2)))
                    .as("section of %s twice", m.group(1))
                    .isNull();
        }
        List<String> slugs =
                Arrays.stream(ProblemType.values()).map(ProblemType::slug).toList();

        // then
        assertThat(documented.keySet())
                .as("the problem types in docs/problems.md")
                .containsExactlyInAnyOrderElementsOf(slugs);
        for (ProblemType type : ProblemType.values()) {
            assertThat(documented.get(type.slug()))
                    .as("first line of the section of %s", type.slug())
                    .isEqualTo("`" + type.status() + "` · " + type.title());
        }
    }
}

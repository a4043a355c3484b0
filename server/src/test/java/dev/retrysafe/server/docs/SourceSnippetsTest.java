package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.RepositoryRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A code block in {@code docs/} preceded by {@code <!-- source: PATH -->} is a quote of the file
 * at {@code PATH}, which the build compiles and tests: the block must appear in it verbatim, so
 * the example shown cannot drift from the code that is run.
 */
class SourceSnippetsTest {

    private static final Pattern QUOTE =
            Pattern.compile("<!-- source: (\\S+) -->\\n```[a-z]*\\n(.*?)```", Pattern.DOTALL);

    @Test
    void everyQuotedBlockIsInItsSourceFile() throws Exception {
        // given
        Path root = RepositoryRoot.find();
        List<String> checked = new ArrayList<>();
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            for (Path doc :
                    docs.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                Matcher quote = QUOTE.matcher(Files.readString(doc));
                while (quote.find()) {
                    // then
                    Path source = root.resolve(quote.group(1));
                    assertThat(source)
                            .as("%s quotes %s", doc.getFileName(), quote.group(1))
                            .isRegularFile();
                    assertThat(Files.readString(source))
                            .as("%s quotes %s", doc.getFileName(), quote.group(1))
                            .contains(quote.group(2));
                    checked.add(doc.getFileName() + " <- " + quote.group(1));
                }
            }
        }
        assertThat(checked).as("quoted blocks in docs/").isNotEmpty();
    }
}

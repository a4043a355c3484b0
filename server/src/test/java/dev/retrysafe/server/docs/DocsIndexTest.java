package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.RepositoryRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/README.md} indexes every document in {@code docs/}, and the README links the index
 * while its first code block stays the two commands a newcomer needs.
 */
class DocsIndexTest {

    @Test
    void theIndexLinksEveryDocument() throws Exception {
        // given
        String index = Files.readString(RepositoryRoot.doc("README.md"));
        List<String> documents;
        try (Stream<Path> files = Files.list(RepositoryRoot.find().resolve("docs"))) {
            documents = files.map(p -> p.getFileName().toString())
                    .filter(name -> name.endsWith(".md") && !name.equals("README.md"))
                    .sorted()
                    .toList();
        }

        // then
        assertThat(documents).isNotEmpty();
        for (String document : documents) {
            assertThat(index).as("docs/README.md links %s", document).contains("](" + document + ")");
        }
    }

    @Test
    void theReadmeStartsWithTheTwoCommandsAndLinksTheIndex() throws Exception {
        String readme = Files.readString(RepositoryRoot.find().resolve("README.md"));

        int firstBlock = readme.indexOf("```");
        String commands = readme.substring(firstBlock, readme.indexOf("```", firstBlock + 3));
        assertThat(commands).as("the README's first code block").contains("./run", "./test");
        assertThat(readme).contains("](docs/README.md)");
    }
}

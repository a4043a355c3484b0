package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.RepositoryRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/architecture.md} stays true as files move: its module table names every module of
 * the build, and the life of a request names, step by step, files that exist, never one twice.
 * And {@code ./run} rebuilds the server when any module in its jar changes.
 */
class ArchitectureDocTest {

    private static final Pattern STEP = Pattern.compile("(?m)^(\\d+)\\. `([a-z-]+)/…/([A-Za-z/]+\\.java)`");
    private static final Pattern MODULE = Pattern.compile("<module>([a-z/-]+)</module>");
    private static final Pattern TABLE_ROW = Pattern.compile("(?m)^\\| `([a-z/-]+)` \\|");

    @Test
    void everyModuleOfTheBuildIsInTheMapAndNothingElse() throws Exception {
        Path root = RepositoryRoot.find();
        Set<String> built = matches(MODULE, Files.readString(root.resolve("pom.xml")));
        Set<String> mapped = matches(TABLE_ROW, Files.readString(RepositoryRoot.doc("architecture.md")));

        assertThat(built).isNotEmpty();
        assertThat(mapped).as("modules in docs/architecture.md").containsExactlyInAnyOrderElementsOf(built);
    }

    @Test
    void theLifeOfAPaymentNamesExistingFilesInFewerThanFifteenStepsNeverReturning() throws Exception {
        Path root = RepositoryRoot.find();
        Matcher step = STEP.matcher(Files.readString(RepositoryRoot.doc("architecture.md")));
        List<Path> files = new ArrayList<>();
        int number = 0;
        while (step.find()) {
            assertThat(Integer.parseInt(step.group(1)))
                    .as("steps numbered in order")
                    .isEqualTo(++number);
            Path source = root.resolve(step.group(2)).resolve("src/main/java");
            String tail = "/" + step.group(3);
            List<Path> found;
            try (Stream<Path> walk = Files.walk(source)) {
                found = walk.filter(p -> p.toString().replace('\\', '/').endsWith(tail))
                        .toList();
            }
            assertThat(found)
                    .as("step %d: %s in module %s", number, step.group(3), step.group(2))
                    .hasSize(1);
            files.add(found.get(0));
        }

        assertThat(files).as("steps").hasSizeBetween(8, 14).doesNotHaveDuplicates();
    }

    @Test
    void theRunScriptRebuildsWhenAnyModuleInTheServerJarChanges() throws Exception {
        // a module missing from ./run's list leaves a stale jar running after its sources changed
        Path root = RepositoryRoot.find();
        Set<String> inTheJar = matches(MODULE, Files.readString(root.resolve("pom.xml")));
        // the modules the server does not depend on
        inTheJar.removeAll(Set.of(
                "bom", "testkit", "bench", "acceptance", "spring-boot-starter", "examples/spring-boot-payments"));
        Matcher watched = Pattern.compile("\\{([a-z,-]+)}/src/main").matcher(Files.readString(root.resolve("run")));

        assertThat(watched.find()).as("./run's list of sources it rebuilds for").isTrue();
        assertThat(Set.of(watched.group(1).split(","))).containsExactlyInAnyOrderElementsOf(inTheJar);
    }

    private static Set<String> matches(Pattern pattern, String text) {
        Set<String> found = new LinkedHashSet<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }
}

package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.testkit.RepositoryRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * {@code retrysafe-bom} gives an application one version for every library module of the build:
 * a module added to the root POM fails here until the BOM has it, and the BOM never names
 * anything else or another version. And {@code ./mvnw install} installs every module, so that
 * the coordinates of {@code docs/libraries.md} resolve from the local repository.
 */
class BomTest {

    @Test
    void theBomManagesEveryLibraryModuleAndNothingElse() throws Exception {
        // given
        Path root = RepositoryRoot.find();
        BuildPoms build = BuildPoms.read(root);
        List<BuildPoms.Dependency> managed = BuildPoms.dependencies(Files.readString(root.resolve("bom/pom.xml")));

        // then
        assertThat(build.libraryArtifacts())
                .as("library modules of the root pom")
                .hasSizeGreaterThan(5);
        assertThat(managed)
                .extracting(BuildPoms.Dependency::artifactId)
                .as("artifacts the BOM manages")
                .containsExactlyInAnyOrderElementsOf(build.libraryArtifacts());
        assertThat(managed).allSatisfy(dependency -> {
            assertThat(dependency.groupId()).isEqualTo(build.groupId());
            assertThat(dependency.version())
                    .as("version of %s in the BOM", dependency.artifactId())
                    .isIn("${project.version}", build.version());
        });
    }

    @Test
    void theBomHasTheProjectsCoordinatesAndNoParent() throws Exception {
        Path root = RepositoryRoot.find();
        BuildPoms build = BuildPoms.read(root);
        Element bom = BuildPoms.parse(Files.readString(root.resolve("bom/pom.xml")));

        // no parent: importing the BOM must bring an application nothing but Retrysafe's versions
        assertThat(BuildPoms.child(bom, "parent")).as("the BOM's <parent>").isNull();
        assertThat(BuildPoms.text(bom, "groupId")).isEqualTo(build.groupId());
        assertThat(BuildPoms.text(bom, "artifactId")).isEqualTo("retrysafe-bom");
        assertThat(BuildPoms.text(bom, "version")).as("the BOM's version").isEqualTo(build.version());
        assertThat(BuildPoms.text(bom, "packaging")).isEqualTo("pom");
        assertThat(build.modules()).extracting(BuildPoms.Module::path).contains("bom");
    }

    @Test
    void theBomDeclaresTheParentsSpotlessVersionSoThatFormattingRunsAtTheRoot() throws Exception {
        // without a parent the BOM module would not know the spotless prefix, and
        // ./mvnw spotless:apply at the root would stop there
        Path root = RepositoryRoot.find();

        assertThat(spotlessVersion(root.resolve("bom/pom.xml"))).isEqualTo(spotlessVersion(root.resolve("pom.xml")));
    }

    @Test
    void noModuleSkipsInstallingItsArtifacts() throws Exception {
        Path root = RepositoryRoot.find();
        List<Path> poms = Stream.concat(
                        Stream.of(root), BuildPoms.read(root).modules().stream().map(m -> root.resolve(m.path())))
                .map(folder -> folder.resolve("pom.xml"))
                .toList();

        assertThat(poms).hasSizeGreaterThan(5);
        for (Path pom : poms) {
            assertThat(Files.readString(pom))
                    .as("%s installs what it builds", root.relativize(pom))
                    .doesNotContain("maven.install.skip", "maven.deploy.skip", "<skipInstall>");
        }
    }

    private static String spotlessVersion(Path pom) throws Exception {
        Element project = BuildPoms.parse(Files.readString(pom));
        List<BuildPoms.Plugin> plugins = BuildPoms.buildPlugins(project);
        return plugins.stream()
                .filter(plugin -> plugin.artifactId().equals("spotless-maven-plugin"))
                .map(BuildPoms.Plugin::version)
                .findFirst()
                .orElseThrow(() -> new AssertionError(pom + " declares no spotless-maven-plugin"));
    }
}

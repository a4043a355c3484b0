package dev.retrysafe.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The root folder of the Retrysafe repository, for tests that run {@code ./run} or read
 * {@code docs/}: Maven's {@code maven.multiModuleProjectDirectory} when the test JVM has it, else
 * the parent of the module's folder (Surefire runs tests in the module's folder).
 */
public final class RepositoryRoot {

    private RepositoryRoot() {}

    /**
     * The repository's root.
     *
     * @throws AssertionError if the folder found has no executable {@code ./run} or no {@code docs} folder
     */
    public static Path find() {
        String fromMaven = System.getProperty("maven.multiModuleProjectDirectory");
        Path root = fromMaven != null && !fromMaven.isBlank()
                ? Path.of(fromMaven)
                : Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        if (!Files.isExecutable(root.resolve("run")) || !Files.isDirectory(root.resolve("docs"))) {
            throw new AssertionError("not the repository's root (no executable ./run or no docs folder): " + root);
        }
        return root;
    }

    /** {@code docs/<name>} of the repository. */
    public static Path doc(String name) {
        return find().resolve("docs").resolve(name);
    }
}

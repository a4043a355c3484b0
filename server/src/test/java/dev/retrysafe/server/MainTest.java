package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line, in-process. */
class MainTest {

    @TempDir
    Path dataDir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(Map<String, String> env, String... args) {
        return Main.run(
                args,
                env,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpListsEverySubcommandAndOption() {
        assertThat(run(Map.of(), "--help")).isZero();

        assertThat(out())
                .contains(
                        "serve",
                        "create-account",
                        "--name",
                        "--plan",
                        "migrate",
                        "--config",
                        "PORT",
                        "RETRYSAFE_DATABASE_URL",
                        "RETRYSAFE_BOOTSTRAP_API_KEYS");
    }

    @Test
    void unknownOptionExitsWithTwoAndSaysWhy() {
        assertThat(run(Map.of(), "--frobnicate")).isEqualTo(2);

        assertThat(err()).contains("unknown option '--frobnicate'").contains("--help");
        assertThat(out()).isEmpty();
    }

    @Test
    void unknownCommandAndMissingValuesExitWithTwo() {
        assertThat(run(Map.of(), "launch")).isEqualTo(2);
        assertThat(run(Map.of(), "create-account")).isEqualTo(2);
        assertThat(run(Map.of(), "create-account", "--name")).isEqualTo(2);
        assertThat(run(Map.of(), "create-account", "--name", "x", "--plan", "gold"))
                .isEqualTo(2);
        assertThat(run(Map.of(), "migrate", "--name", "x")).isEqualTo(2);
        assertThat(err()).contains("unknown command 'launch'").contains("--plan must be one of free, pro, enterprise");
    }

    @Test
    void invalidConfigurationExitsWithTwoNamingTheSetting() {
        assertThat(run(Map.of("PORT", "-3"), "migrate")).isEqualTo(2);

        assertThat(err()).contains("port").contains("-3").contains("PORT");
    }

    @Test
    void createAccountPrintsOnlyTheKeyOnStandardOutput() {
        int code = run(
                Map.of("RETRYSAFE_DATA_DIR", dataDir.toString()),
                "create-account",
                "--name=shop",
                "--plan",
                "enterprise");

        assertThat(code).as(err()).isZero();
        assertThat(out().strip()).matches("rs_[A-Za-z0-9_-]{43}");
        assertThat(err()).contains("shop").contains("enterprise").doesNotContain(out().strip());
    }

    @Test
    void migrateCreatesTheEmbeddedDatabase() {
        assertThat(run(Map.of("RETRYSAFE_DATA_DIR", dataDir.toString()), "migrate"))
                .as(err())
                .isZero();

        assertThat(dataDir.resolve("retrysafe.mv.db")).exists();
    }
}

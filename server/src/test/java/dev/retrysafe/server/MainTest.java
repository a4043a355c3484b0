package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.cli.Command;
import dev.retrysafe.server.cli.CommandLine;
import dev.retrysafe.server.cli.Main;
import dev.retrysafe.testkit.PostgresTestDatabase;
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
                "enterprise",
                "--new-database");

        assertThat(code).as(err()).isZero();
        assertThat(out().strip()).matches("rs_[A-Za-z0-9_-]{43}");
        assertThat(err()).contains("shop").contains("enterprise").doesNotContain(out().strip());
    }

    @Test
    void createAccountRefusesADataFolderWithoutADatabaseAndMakesNothingThere() throws Exception {
        // given: a folder no server has run on (as when the command runs from another folder)
        Path elsewhere = dataDir.resolve("elsewhere");

        // when
        int code = run(Map.of("RETRYSAFE_DATA_DIR", elsewhere.toString()), "create-account", "--name", "shop");

        // then
        assertThat(code).isEqualTo(Main.FAILURE);
        assertThat(out()).isEmpty();
        assertThat(err().strip())
                .doesNotContain("\n")
                .contains("no embedded database in " + elsewhere.toAbsolutePath())
                .contains("RETRYSAFE_DATA_DIR")
                .contains("--new-database");
        assertThat(elsewhere).as("nothing is made in the folder").doesNotExist();
    }

    @Test
    void createAccountSaysWhichDatabaseItWroteTo() {
        assertThat(run(Map.of("RETRYSAFE_DATA_DIR", dataDir.toString()), "migrate"))
                .as(err())
                .isZero();
        err.reset();

        int code = run(Map.of("RETRYSAFE_DATA_DIR", dataDir.toString()), "create-account", "--name", "shop");

        assertThat(code).as(err()).isZero();
        assertThat(err())
                .contains("in the embedded database in "
                        + dataDir.toAbsolutePath().normalize())
                .doesNotContain("through the server");
    }

    @Test
    void createAccountGoesThroughTheServerRunningOnTheFolderAndSaysSo() throws Exception {
        try (TestServer server = TestServer.h2(dataDir).start()) {
            int code = run(Map.of("RETRYSAFE_DATA_DIR", dataDir.toString()), "create-account", "--name", "shop");

            assertThat(code).as(err()).isZero();
            assertThat(err())
                    .contains("in the embedded database in "
                            + dataDir.toAbsolutePath().normalize() + " (through the server running on it)");
            assertThat(new Api(server.baseUri(), out().strip())
                            .get("/v1/payments")
                            .status())
                    .isEqualTo(200);
        }
    }

    @Test
    void createAccountOnPostgresNamesTheDatabaseWithoutItsPassword() {
        try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
            int code = run(
                    Map.of(
                            "RETRYSAFE_DATABASE_URL", db.jdbcUrl(),
                            "RETRYSAFE_DATABASE_USER", db.user(),
                            "RETRYSAFE_DATABASE_PASSWORD", "not-a-secret-pw"),
                    "create-account",
                    "--name",
                    "shop");

            assertThat(code).as(err()).isZero();
            assertThat(err()).contains("in the database " + db.jdbcUrl()).doesNotContain("not-a-secret-pw");
        }
    }

    @Test
    void aMissingPostgresDatabaseIsOneLineThatSaysHowToCreateIt() {
        try (PostgresTestDatabase existing = PostgresTestDatabase.create()) {
            // given: a database of the same server that nobody created
            String missing = existing.name() + "_missing";
            String url = existing.jdbcUrl().replace("/" + existing.name(), "/" + missing);

            // when
            int code =
                    run(Map.of("RETRYSAFE_DATABASE_URL", url, "RETRYSAFE_DATABASE_USER", existing.user()), "migrate");

            // then
            assertThat(code).isEqualTo(Main.FAILURE);
            assertThat(err().strip())
                    .doesNotContain("\n")
                    .startsWith("retrysafe: the PostgreSQL database '" + missing + "' does not exist on ")
                    .contains("createdb ")
                    .contains(" -U " + existing.user() + " " + missing)
                    .contains("CREATE DATABASE " + missing + ";")
                    .doesNotContain("Flyway", "Exception");
        }
    }

    @Test
    void versionPrintsTheBuiltVersion() {
        assertThat(run(Map.of(), "--version")).isZero();

        assertThat(out().strip()).matches("retrysafe \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(Java \\d+, .+\\)");
        assertThat(err()).isEmpty();
    }

    @Test
    void helpListsEveryCommandInTheOrderOfAFirstHour() {
        assertThat(run(Map.of(), "--help")).isZero();

        assertThat(out())
                .containsSubsequence(
                        "  serve [--port N]",
                        "  create-account --name NAME",
                        "  migrate",
                        "  cluster start|status|stop",
                        "  webhooks sign",
                        "  webhooks verify",
                        "  webhooks listen",
                        "  demo retry",
                        "  demo lost-answer",
                        "Options:",
                        "--config FILE",
                        "--port N",
                        "--version",
                        "--help",
                        "RETRYSAFE_REDIS_KEY_PREFIX");
    }

    @Test
    void portOptionIsForServeAndChecked() {
        assertThat(CommandLine.parse(new String[] {"--port", "9090"})).isEqualTo(new Command.Serve(null, 9090));
        assertThat(CommandLine.parse(new String[] {"serve", "--port=0"})).isEqualTo(new Command.Serve(null, 0));
        assertThat(CommandLine.parse(new String[] {})).isEqualTo(new Command.Serve(null, null));

        assertThat(run(Map.of(), "serve", "--port", "http")).isEqualTo(Main.USAGE);
        assertThat(run(Map.of(), "--port", "65536")).isEqualTo(Main.USAGE);
        assertThat(run(Map.of(), "migrate", "--port", "9090")).isEqualTo(Main.USAGE);
        assertThat(run(Map.of(), "create-account", "--name", "x", "--port", "9090"))
                .isEqualTo(Main.USAGE);
        assertThat(err())
                .contains("--port must be a whole number from 0 to 65535, was 'http'")
                .contains("was '65536'")
                .contains("option --port only applies to serve");
    }

    @Test
    void clusterIsNamedAsTheRunScriptsCommand() {
        assertThat(run(Map.of(), "cluster", "start")).isEqualTo(Main.USAGE);

        assertThat(err()).contains("cluster is a command of ./run").contains("./run cluster --help");
    }

    @Test
    void migrateCreatesTheEmbeddedDatabase() {
        assertThat(run(Map.of("RETRYSAFE_DATA_DIR", dataDir.toString()), "migrate"))
                .as(err())
                .isZero();

        assertThat(dataDir.resolve("retrysafe.mv.db")).exists();
    }
}

package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.server.cli.Main;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bootstrap keys, the demo account, and create-account next to a running server. */
class AccountsTest {

    @TempDir
    Path dataDir;

    @Test
    void bootstrapKeysAuthenticateTheirOwnAccounts() {
        try (TestServer server = TestServer.h2().start()) {
            String mine = Api.of(server)
                    .post("/v1/payments", "{\"amount\": 5, \"currency\": \"eur\"}")
                    .body()
                    .get("id")
                    .asText();

            assertThat(new Api(server.baseUri(), server.otherApiKey())
                            .get("/v1/payments/" + mine)
                            .status())
                    .isEqualTo(404);
            assertThat(Api.of(server).get("/v1/payments/" + mine).status()).isEqualTo(200);
        }
    }

    @Test
    void bootstrapKeysSurviveRestartsWithoutNewAccounts() {
        String key = ApiKeys.generate();
        String payment;
        try (TestServer first = TestServer.h2(dataDir)
                .configure(c -> c.withBootstrapApiKeys(List.of(key)))
                .start()) {
            payment = new Api(first.baseUri(), key)
                    .post("/v1/payments", "{\"amount\": 5, \"currency\": \"eur\"}")
                    .body()
                    .get("id")
                    .asText();
        }
        try (TestServer second = TestServer.h2(dataDir)
                .configure(c -> c.withBootstrapApiKeys(List.of(key)))
                .start()) {
            assertThat(new Api(second.baseUri(), key)
                            .get("/v1/payments/" + payment)
                            .status())
                    .isEqualTo(200);
        }
    }

    @Test
    void demoAccountIsCreatedOnceWithAnOwnerOnlyKeyFile() throws IOException {
        String key;
        try (TestServer first = TestServer.h2(dataDir).start()) {
            Path file = dataDir.resolve("demo-api-key");
            key = Files.readString(file).strip();
            assertThat(key).startsWith("rs_");
            assertThat(first.output()).contains(key);
            assertThat(Files.getPosixFilePermissions(file))
                    .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
            assertThat(new Api(first.baseUri(), key).get("/v1/payments").status())
                    .isEqualTo(200);
        }
        try (TestServer second = TestServer.h2(dataDir).start()) {
            assertThat(Files.readString(dataDir.resolve("demo-api-key")).strip())
                    .isEqualTo(key);
            assertThat(second.output()).doesNotContain(key);
            assertThat(new Api(second.baseUri(), key).get("/v1/payments").status())
                    .isEqualTo(200);
        }
    }

    @Test
    void createAccountWorksFromAnotherProcessWhileTheServerRuns() throws Exception {
        try (TestServer server = TestServer.h2(dataDir).start()) {
            String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            ProcessBuilder pb = new ProcessBuilder(
                    java.toString(),
                    "-cp",
                    classPath,
                    Main.class.getName(),
                    "create-account",
                    "--name",
                    "acme",
                    "--plan",
                    "pro");
            pb.environment().put("RETRYSAFE_DATA_DIR", dataDir.toString());
            pb.redirectError(ProcessBuilder.Redirect.DISCARD);
            Process process = pb.start();
            try {
                assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
                String out = new String(process.getInputStream().readAllBytes()).strip();
                assertThat(process.exitValue()).isZero();
                assertThat(out).matches("rs_[A-Za-z0-9_-]{43}");

                Api acme = new Api(server.baseUri(), out);
                assertThat(acme.get("/v1/payments").status()).isEqualTo(200);
                assertThat(acme.post("/v1/payments", "{\"amount\": 5, \"currency\": \"eur\"}")
                                .status())
                        .isEqualTo(201);
            } finally {
                process.destroyForcibly();
            }
        }
        assertThat(Set.of(dataDir.toFile().list())).contains("demo-api-key");
    }
}

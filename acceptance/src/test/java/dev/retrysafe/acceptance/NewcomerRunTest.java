package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.retrysafe.testkit.RepositoryRoot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A newcomer's path through the repository's own {@code ./run}, as a process: start it with only
 * {@code PORT} and {@code RETRYSAFE_DATA_DIR} set, wait for {@code /ready}, read the demo key the
 * first start wrote, make a payment, create an account from a second process while it runs, and
 * stop it with SIGTERM. The build already packaged the server, so {@code ./run} must not build.
 *
 * <p>Exit code on SIGTERM: {@code ./run} execs the JVM, and a JVM that receives SIGTERM runs its
 * shutdown hooks (here: the graceful stop) and then exits with 128 + 15 = 143, whatever the hooks
 * did; only {@code Runtime.halt} could change that, and the server does not call it. So 143 is the
 * code of a clean stop on SIGTERM (the shell convention, and what service managers expect of a
 * JVM); a crash during the stop would show as a stack trace, which is asserted absent.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NewcomerRunTest {

    private static final String BUILD_LINE = "run: building the server";
    private static final Duration READY_DEADLINE = Duration.ofSeconds(90);
    private static final Duration COMMAND_DEADLINE = Duration.ofSeconds(60);
    private static final Duration PAYMENT_TIMEOUT = Duration.ofSeconds(10);
    /** A line of a Java stack trace, a chained cause, or the JVM's report of an uncaught exception. */
    private static final Pattern STACK_TRACE =
            Pattern.compile("(?m)^\\s+at [\\w$.<>/]+\\(.*\\)\\s*$|^Caused by: |Exception in thread ");

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private final List<ServerProcess> processes = new ArrayList<>();

    @AfterEach
    void stopEverything() {
        for (ServerProcess p : processes) {
            p.close();
        }
    }

    @Test
    void runServesThePaymentsApiWithTheDemoKeyAndStopsCleanlyOnSigterm() throws Exception {
        Path dataDir = temp.resolve("data");
        int port = ServerProcess.freePort();
        ServerProcess server =
                run("serve", Map.of("PORT", Integer.toString(port), "RETRYSAFE_DATA_DIR", dataDir.toString()));
        try {
            server.awaitReady(port, READY_DEADLINE);
            assertThat(server.stderr())
                    .as("./run must find the packaged jar up to date")
                    .doesNotContain(BUILD_LINE);

            Path keyFile = dataDir.resolve("demo-api-key");
            assertThat(keyFile).as("the demo key file of the first start").isRegularFile();
            String demoKey = Files.readString(keyFile, StandardCharsets.UTF_8).strip();
            assertThat(demoKey).isNotBlank();
            assertThat(server.stdout())
                    .as("the first start prints the demo key")
                    .contains(demoKey);

            URI base = ServerProcess.base(port);
            try (HttpClient http = PaymentsClient.newHttpClient()) {
                String key = UUID.randomUUID().toString();
                String body = "{\"amount\": 500, \"currency\": \"eur\", \"description\": \"first coffee\"}";
                HttpResponse<String> created = http.send(
                        PaymentsClient.paymentRequest(base, demoKey, key, body, PAYMENT_TIMEOUT),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(created.statusCode())
                        .as("POST /v1/payments: %s", created.body())
                        .isEqualTo(201);
                JsonNode payment = JSON.readTree(created.body());
                String id = payment.path("id").asText();
                assertThat(id).startsWith("pay_");
                assertThat(payment.path("amount").asLong()).isEqualTo(500);
                assertThat(payment.path("currency").asText()).isEqualTo("eur");
                assertThat(created.headers().firstValue("Location")).contains("/v1/payments/" + id);

                // the retry a newcomer's client makes after a timeout: the same answer, not a second payment
                HttpResponse<String> retried = http.send(
                        PaymentsClient.paymentRequest(base, demoKey, key, body, PAYMENT_TIMEOUT),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(retried.statusCode()).as("retry: %s", retried.body()).isEqualTo(201);
                assertThat(retried.headers().firstValue("Idempotent-Replayed")).contains("true");
                assertThat(JSON.readTree(retried.body()).path("id").asText()).isEqualTo(id);

                // create-account from a second process while the server holds the data
                ServerProcess cli = run(
                        "create-account",
                        Map.of("RETRYSAFE_DATA_DIR", dataDir.toString()),
                        "create-account",
                        "--name",
                        "newcomer-two");
                int cliCode = cli.waitFor(COMMAND_DEADLINE);
                assertThat(cliCode)
                        .as("./run create-account while the server runs\n%s", cli.describe())
                        .isZero();
                String newKey = cli.stdout().strip();
                assertThat(newKey)
                        .as("create-account prints exactly the new key")
                        .isNotBlank()
                        .doesNotContain("\n", " ");
                assertThat(newKey).isNotEqualTo(demoKey);

                HttpResponse<String> list = http.send(
                        HttpRequest.newBuilder(base.resolve("/v1/payments"))
                                .timeout(Duration.ofSeconds(10))
                                .header("Authorization", "Bearer " + newKey)
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(list.statusCode())
                        .as("the new key works on the running server: %s", list.body())
                        .isEqualTo(200);
                assertThat(JSON.readTree(list.body()).path("data").size())
                        .as("a new account sees no payments")
                        .isZero();
            }

            int code = server.terminate(Duration.ofSeconds(20));
            assertThat(code)
                    .as("exit code after SIGTERM (-1: still running after 20 s)")
                    .isEqualTo(ServerProcess.EXIT_SIGTERM);
            assertThat(server.stdout() + server.stderr())
                    .as("output of a clean run")
                    .doesNotContainPattern(STACK_TRACE);
        } catch (Throwable t) {
            ServerProcess.attachLogs(t, List.of(server));
            throw t;
        }
    }

    @Test
    void helpListsTheSubcommands() throws Exception {
        ServerProcess help =
                run("help", Map.of("RETRYSAFE_DATA_DIR", temp.resolve("data").toString()), "--help");
        int code = help.waitFor(COMMAND_DEADLINE);
        assertThat(code).as("./run --help\n%s", help.describe()).isZero();
        assertThat(help.stdout()).contains("serve", "create-account");
        assertThat(help.stderr()).doesNotContain(BUILD_LINE);
        assertThat(temp.resolve("data")).as("--help touches no data").doesNotExist();
    }

    @Test
    void createAccountPrintsANewKey() throws Exception {
        Path dataDir = temp.resolve("data");
        ServerProcess cli = run(
                "create-account",
                Map.of("RETRYSAFE_DATA_DIR", dataDir.toString()),
                "create-account",
                "--name",
                "x",
                "--new-database");
        int code = cli.waitFor(COMMAND_DEADLINE);
        assertThat(code)
                .as("./run create-account --name x --new-database\n%s", cli.describe())
                .isZero();
        assertThat(cli.stderr())
                .as("says which database it wrote to")
                .contains("in the embedded database in "
                        + dataDir.toAbsolutePath().normalize());
        String key = cli.stdout().strip();
        assertThat(key)
                .as("stdout is the key and nothing else")
                .isNotBlank()
                .doesNotContain("\n", " ")
                .hasSizeBetween(16, 200);
        assertThat(cli.stderr()).doesNotContain(BUILD_LINE).doesNotContainPattern(STACK_TRACE);
    }

    /** Starts the repository's {@code ./run} with {@code args} and only {@code env} as Retrysafe settings. */
    private ServerProcess run(String name, Map<String, String> env, String... args) throws Exception {
        Path root = RepositoryRoot.find();
        List<String> command = new ArrayList<>();
        command.add(root.resolve("run").toString());
        command.addAll(List.of(args));
        ServerProcess p = ServerProcess.start(name, command, ServerProcess.environment(env), temp, logDir());
        processes.add(p);
        return p;
    }

    private Path logDir() throws Exception {
        return Files.createDirectories(temp.resolve("logs"));
    }
}

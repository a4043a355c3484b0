package dev.retrysafe.server.cli;

import dev.retrysafe.client.CallResult;
import dev.retrysafe.client.RetryBudget;
import dev.retrysafe.client.RetryPolicy;
import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.sdk.Payment;
import dev.retrysafe.sdk.RetrysafeClient;
import dev.retrysafe.server.RetrysafeServer;
import dev.retrysafe.server.accounts.ApiKeys;
import dev.retrysafe.server.config.BankConfig;
import dev.retrysafe.server.config.ServerConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * {@code demo retry} and {@code demo lost-answer}: the retrying client at work, for newcomers. Every
 * attempt, status, wait and the outcome is printed; the exit code says whether the outcome was the
 * promised one.
 */
public final class DemoCommands {

    /** The embedded server's bank latency in the lost-answer demo. */
    static final Duration EMBEDDED_BANK_LATENCY = Duration.ofMillis(500);
    /** The attempt timeout against the embedded server: well below its bank latency. */
    static final Duration EMBEDDED_TIMEOUT = Duration.ofMillis(200);
    /** The attempt timeout against {@code --url}: half the server's default bank latency (100 ms). */
    static final Duration URL_TIMEOUT = Duration.ofMillis(50);
    /** Exit code when the outcome was not the promised one. */
    static final int FAILED = 1;

    private DemoCommands() {}

    /**
     * The seed's run: a local server answers {@code 503} ({@code Retry-After: 1}), {@code 500},
     * {@code 429} ({@code Retry-After: 0}), then {@code 200}; then a server answers {@code 400}.
     */
    public static int retry(PrintStream out, DemoEnvironment env) throws IOException, InterruptedException {
        RetryPolicy policy = RetryPolicy.defaults();
        out.println("Retry demo: the retrying client (dev.retrysafe.client) against a server on this machine.");
        out.println("Policy: at most " + policy.maxAttempts() + " attempts; full jitter random(0, min("
                + policy.maxDelay().toSeconds() + " s, " + policy.baseDelay().toMillis()
                + " ms * 2^n)); Retry-After is a floor, never undercut.");
        boolean ok;
        try (FlakyServer server = new FlakyServer(List.of(
                new FlakyServer.Answer(503, "1"),
                new FlakyServer.Answer(500, null),
                new FlakyServer.Answer(429, "0"),
                new FlakyServer.Answer(200, null)))) {
            out.println();
            out.println("1. A server that answers 503 (Retry-After: 1), 500, 429 (Retry-After: 0), then 200:");
            CallResult<String> result = get(server, policy, out, env);
            ok = result.statusCode() == 200 && result.attemptCount() == 4;
        }
        try (FlakyServer server =
                new FlakyServer(List.of(new FlakyServer.Answer(400, null), new FlakyServer.Answer(200, null)))) {
            out.println();
            out.println("2. A server that answers 400 first (a bad request fails the same way every time):");
            CallResult<String> result = get(server, policy, out, env);
            ok &= result.statusCode() == 400 && result.attemptCount() == 1;
        }
        return ok ? 0 : FAILED;
    }

    private static CallResult<String> get(FlakyServer server, RetryPolicy policy, PrintStream out, DemoEnvironment env)
            throws IOException, InterruptedException {
        try (RetryingHttpClient client = clientBuilder(policy, out, env).build()) {
            URI uri = server.uri("/report");
            out.println("GET " + uri);
            CallResult<String> result =
                    client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            out.println("final " + result.statusCode() + " after " + attempts(result.attemptCount()) + ", "
                    + result.elapsed().toMillis() + "ms");
            return result;
        }
    }

    /**
     * A payment whose answer is lost: the client gives up before the bank answers and retries with
     * the key it generated; the server charges once and answers every attempt with the same payment.
     */
    public static int lostAnswer(Command.DemoLostAnswer command, PrintStream out, PrintStream err, DemoEnvironment env)
            throws Exception {
        out.println("Lost-answer demo: a payment whose answer is lost is retried with one Idempotency-Key.");
        if (command.url() != null) {
            Duration timeout =
                    command.timeoutMillis() != null ? Duration.ofMillis(command.timeoutMillis()) : URL_TIMEOUT;
            out.println("Server: " + command.url() + " (its bank must take longer than the client's timeout, "
                    + timeout.toMillis() + " ms, for the answer to be lost)");
            return lostAnswer(command.url(), command.apiKey(), timeout, out, env);
        }
        Path dir = Files.createTempDirectory("retrysafe-demo-");
        try {
            String key = ApiKeys.generate();
            ServerConfig base = ServerConfig.defaults();
            ServerConfig config = base.withHost("127.0.0.1")
                    .withPort(0)
                    .withDataDir(dir)
                    .withBank(new BankConfig(EMBEDDED_BANK_LATENCY, 0, 0))
                    .withShutdownTimeout(Duration.ofSeconds(5))
                    .withBootstrapApiKeys(List.of(key));
            out.println("Starting an embedded server (H2 in " + dir + ", the bank takes "
                    + EMBEDDED_BANK_LATENCY.toMillis() + " ms per charge)...");
            try (RetrysafeServer server = RetrysafeServer.start(
                    config,
                    java.time.Clock.systemUTC(),
                    new PrintStream(OutputStream.nullOutputStream()),
                    env.bankProcessing())) {
                out.println("Server: " + server.baseUri());
                env.embeddedServerStarted().accept(server.baseUri(), key);
                Duration timeout =
                        command.timeoutMillis() != null ? Duration.ofMillis(command.timeoutMillis()) : EMBEDDED_TIMEOUT;
                return lostAnswer(server.baseUri(), key, timeout, out, env);
            }
        } finally {
            deleteTree(dir, err);
        }
    }

    private static int lostAnswer(
            URI base, @Nullable String apiKey, Duration timeout, PrintStream out, DemoEnvironment env)
            throws IOException, InterruptedException {
        RetryPolicy policy = RetryPolicy.builder().attemptTimeout(timeout).build();
        List<String> keys = new ArrayList<>();
        // one connection pool for the warm-up and the demo, so that the demo's first attempt finds
        // a warm server and an open connection, and its timeout is spent at the bank
        try (HttpClient shared = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build();
                RetryingHttpClient http = clientBuilder(policy, out, env)
                        .httpClient(shared)
                        .listener(a -> keys.add(String.valueOf(a.idempotencyKey())))
                        .build();
                RetrysafeClient api = RetrysafeClient.builder()
                        .baseUri(base)
                        .apiKey(String.valueOf(apiKey))
                        .http(http)
                        .build();
                RetryingHttpClient patient = RetryingHttpClient.builder()
                        .httpClient(shared)
                        .clock(env.clock())
                        .sleeper(env.sleeper())
                        .random(env.random())
                        .build();
                RetrysafeClient warmUp = RetrysafeClient.builder()
                        .baseUri(base)
                        .apiKey(String.valueOf(apiKey))
                        .http(patient)
                        .build()) {
            out.println("Client: each attempt times out after " + timeout.toMillis() + " ms; at most "
                    + policy.maxAttempts() + " attempts; a 409 'key in use' is retried after its Retry-After.");
            warmUp.listPayments(1, null);
            String description =
                    "lost-answer demo " + UUID.randomUUID().toString().substring(0, 8);
            out.println();
            out.println("POST " + base.resolve("/v1/payments")
                    + " {\"amount\":500,\"currency\":\"eur\",\"description\":\"" + description + "\"}");
            Instant start = env.clock().instant();
            Payment payment = api.createPayment(500, "eur", description);
            List<String> firstCall = List.copyOf(keys);
            String key = firstCall.getFirst();
            out.println("final 201 after " + attempts(firstCall.size()) + ", "
                    + Duration.between(start, env.clock().instant()).toMillis() + "ms: payment " + payment.id()
                    + " (" + payment.status() + ")");
            out.println("Idempotency-Key " + key + " was generated once and sent on "
                    + (firstCall.stream().allMatch(key::equals) ? "every attempt" : "SOME attempts only"));
            if (firstCall.size() == 1) {
                out.println("(The first attempt was answered in time, so no answer was lost: give the server's bank a"
                        + " latency above " + timeout.toMillis() + " ms, e.g. RETRYSAFE_BANK_LATENCY_MS=500.)");
            }

            out.println();
            out.println("Sending the same payment again with the same key, as a client would after a crash:");
            Payment again = api.createPayment(500, "eur", description, key);
            out.println("201: payment " + again.id()
                    + (again.id().equals(payment.id()) ? " (the same id)" : " (ANOTHER id)"));

            out.println();
            out.println("GET " + base.resolve("/v1/payments?limit=100"));
            List<Payment> made = api.listPayments(100, null).data().stream()
                    .filter(p -> description.equals(p.description()))
                    .toList();
            out.println(made.size() + (made.size() == 1 ? " payment" : " payments") + " with this description "
                    + made.stream().map(Payment::id).toList());
            boolean ok = made.size() == 1
                    && made.getFirst().id().equals(payment.id())
                    && again.id().equals(payment.id())
                    && firstCall.stream().allMatch(key::equals);
            out.println();
            out.println(
                    ok
                            ? "Outcome: one payment, the same id on every answer."
                            : "Outcome: NOT the promised one (see above).");
            return ok ? 0 : FAILED;
        }
    }

    private static RetryingHttpClient.Builder clientBuilder(RetryPolicy policy, PrintStream out, DemoEnvironment env) {
        return RetryingHttpClient.builder()
                .policy(policy)
                .budget(RetryBudget.defaults())
                .clock(env.clock())
                .sleeper(env.sleeper())
                .random(env.random())
                .listener(new AttemptPrinter(out, policy));
    }

    private static String attempts(int n) {
        return n + (n == 1 ? " attempt" : " attempts");
    }

    private static void deleteTree(Path dir, PrintStream err) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            err.println("retrysafe: could not delete " + dir + ": " + e);
        }
    }
}

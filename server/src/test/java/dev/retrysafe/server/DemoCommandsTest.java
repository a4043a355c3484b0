package dev.retrysafe.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.client.Sleeper;
import dev.retrysafe.server.bank.Bank;
import dev.retrysafe.server.cli.Command;
import dev.retrysafe.server.cli.CommandLine;
import dev.retrysafe.server.cli.DemoCommands;
import dev.retrysafe.server.cli.DemoEnvironment;
import dev.retrysafe.server.cli.Main;
import dev.retrysafe.testkit.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code ./run demo retry} and {@code ./run demo lost-answer}, in-process against loopback servers,
 * asserting on the printed transcript. The client's waits are recorded, not spent; where the
 * story needs the server to move on (the bank finishing the first charge), the wait waits for
 * that condition, with a deadline.
 */
class DemoCommandsTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final FakeClock clock = new FakeClock();
    private final List<Duration> waits = new ArrayList<>();

    private PrintStream out() {
        return new PrintStream(out, true, UTF_8);
    }

    private PrintStream err() {
        return new PrintStream(err, true, UTF_8);
    }

    private String transcript() {
        return out.toString(UTF_8);
    }

    /** A sleeper that records each wait, moves the fake clock, and runs {@code onLongWait} for waits of 1 s or more. */
    private Sleeper sleeper(Runnable onLongWait) {
        return new Sleeper() {
            @Override
            public void sleep(Duration duration) {
                if (duration.isPositive()) {
                    synchronized (waits) {
                        waits.add(duration);
                    }
                    clock.advance(duration);
                    if (duration.compareTo(Duration.ofSeconds(1)) >= 0) {
                        onLongWait.run();
                    }
                }
            }

            @Override
            public CompletableFuture<Void> delay(Duration duration) {
                sleep(duration);
                return CompletableFuture.completedFuture(null);
            }
        };
    }

    @Test
    void retryDemoPrintsEveryAttemptWaitAndOutcome() throws Exception {
        long seed = System.nanoTime();
        DemoEnvironment env =
                new DemoEnvironment(clock, sleeper(() -> {}), new Random(seed), Bank.Processing.SLEEP, (u, k) -> {});

        assertThat(DemoCommands.retry(out(), env)).isZero();

        String t = transcript();
        String why = "seed " + seed + ":\n" + t;
        long first = wait(
                t,
                "attempt 1: 503, Retry-After=1, waiting (\\d+)ms \\(never sooner than Retry-After 1000ms, plus random spread\\)",
                why);
        long second = wait(
                t, "attempt 2: 500, Retry-After=-, waiting (\\d+)ms \\(full jitter, random within 0..200ms\\)", why);
        long third = wait(
                t, "attempt 3: 429, Retry-After=0, waiting (\\d+)ms \\(full jitter, random within 0..400ms\\)", why);
        assertThat(first).as(why).isBetween(1000L, 2000L);
        assertThat(second).as(why).isBetween(0L, 200L);
        assertThat(third).as(why).isBetween(0L, 400L);
        assertThat(t)
                .as(why)
                .containsPattern("attempt 4: 200, Retry-After=-\\R")
                .containsPattern("final 200 after 4 attempts, \\d+ms")
                .containsPattern(
                        "attempt 1: 400, Retry-After=-, not retried: 400 is not retryable: it would fail the same way again")
                .containsPattern("final 400 after 1 attempt, \\d+ms");
        assertThat(waits).extracting(Duration::toMillis).containsExactly(first, second, third);
    }

    private static long wait(String transcript, String regex, String why) {
        Matcher m = Pattern.compile(regex).matcher(transcript);
        assertThat(m.find()).as("'" + regex + "' in " + why).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** Holds the first charge at the bank until released, so the first attempt's answer is lost for sure. */
    private static final class HeldBank implements Bank.Processing {
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch firstAtBank = new CountDownLatch(1);
        final AtomicBoolean first = new AtomicBoolean(true);

        @Override
        public void process(String chargeKey, Duration latency) throws InterruptedException {
            if (first.compareAndSet(true, false)) {
                firstAtBank.countDown();
                if (!release.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("the test never released the first charge");
                }
            }
        }
    }

    /** Releases the held charge and waits until the payment is committed, seen through the API. */
    private static void releaseAndAwaitPayment(HeldBank bank, URI base, String apiKey) {
        bank.release.countDown();
        try (HttpClient http = HttpClient.newHttpClient()) {
            await("the first attempt's payment committed")
                    .atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> {
                        HttpResponse<String> r = http.send(
                                HttpRequest.newBuilder(base.resolve("/v1/payments?limit=1"))
                                        .header("Authorization", "Bearer " + apiKey)
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        return r.statusCode() == 200 && r.body().contains("\"pay_");
                    });
        }
    }

    /**
     * The first attempt's answer is lost for sure (the bank holds it); the attempts after it may
     * also time out on a slow machine, so only the order of events is asserted: a timeout, then a
     * 409 "key in use" honoured for its Retry-After, then the first attempt's 201.
     */
    private void assertLostAnswerTranscript(String t) {
        assertThat(t)
                .as(t)
                .containsPattern(
                        "attempt 1: no answer within the timeout \\(Http(Connect)?TimeoutException\\), waiting \\d+ms")
                .containsPattern(
                        "attempt \\d: 409 \\(key in use: the first attempt is still running\\), Retry-After=1, waiting \\d+ms")
                .containsPattern("attempt \\d: 201, Retry-After=-\\R")
                .containsPattern("final 201 after \\d attempts, \\d+ms: payment pay_\\w+ \\(succeeded\\)")
                .containsPattern("Idempotency-Key [0-9a-f-]{36} was generated once and sent on every attempt")
                .containsPattern("201: payment pay_\\w+ \\(the same id\\)")
                .containsPattern("1 payment with this description \\[pay_\\w+\\]")
                .contains("Outcome: one payment, the same id on every answer.");
        assertThat(t.indexOf("no answer within the timeout")).isLessThan(t.indexOf(": 409 (key in use"));
        assertThat(t.indexOf(": 409 (key in use")).isLessThan(t.indexOf("final 201"));
        synchronized (waits) {
            assertThat(waits.stream().filter(w -> w.compareTo(Duration.ofSeconds(1)) >= 0))
                    .as("the 409's Retry-After")
                    .isNotEmpty();
        }
    }

    @Test
    void lostAnswerDemoAgainstAServerGivenByUrl() throws Exception {
        HeldBank bank = new HeldBank();
        try (TestServer server = TestServer.h2().bankProcessing(bank).start()) {
            DemoEnvironment env = new DemoEnvironment(
                    clock,
                    sleeper(() -> releaseAndAwaitPayment(bank, server.baseUri(), server.apiKey())),
                    new Random(),
                    Bank.Processing.SLEEP,
                    (u, k) -> {});
            Command.DemoLostAnswer command = (Command.DemoLostAnswer) CommandLine.parse(new String[] {
                "demo",
                "lost-answer",
                "--url",
                server.baseUri().toString(),
                "--api-key",
                server.apiKey(),
                "--timeout",
                "200"
            });

            int code = DemoCommands.lostAnswer(command, out(), err(), env);

            assertThat(code).as(transcript() + err.toString(UTF_8)).isZero();
            assertThat(bank.firstAtBank.getCount()).isZero();
            assertLostAnswerTranscript(transcript());
        }
    }

    @Test
    void lostAnswerDemoStartsItsOwnServerWithoutUrl() throws Exception {
        HeldBank bank = new HeldBank();
        AtomicReference<URI> base = new AtomicReference<>();
        AtomicReference<String> key = new AtomicReference<>();
        DemoEnvironment env = new DemoEnvironment(
                clock,
                sleeper(() -> releaseAndAwaitPayment(bank, base.get(), key.get())),
                new Random(),
                bank,
                (u, k) -> {
                    base.set(u);
                    key.set(k);
                });
        Command.DemoLostAnswer command =
                (Command.DemoLostAnswer) CommandLine.parse(new String[] {"demo", "lost-answer"});

        int code = DemoCommands.lostAnswer(command, out(), err(), env);

        assertThat(code).as(transcript() + err.toString(UTF_8)).isZero();
        assertThat(transcript()).contains("Starting an embedded server").contains("Server: http://127.0.0.1:");
        assertThat(base.get().getHost()).isEqualTo("127.0.0.1");
        assertLostAnswerTranscript(transcript());
    }

    @Test
    void demoCommandLines() {
        assertThat(CommandLine.parse(new String[] {"demo", "retry"})).isEqualTo(new Command.DemoRetry());
        assertThat(CommandLine.parse(new String[] {"demo", "lost-answer"}))
                .isEqualTo(new Command.DemoLostAnswer(null, null, null));
        assertThat(CommandLine.parse(new String[] {
                    "demo", "lost-answer", "--url=http://localhost:8080", "--api-key", "k", "--timeout=75"
                }))
                .isEqualTo(new Command.DemoLostAnswer(URI.create("http://localhost:8080"), "k", 75));
        Map.of(
                        new String[] {"demo"},
                        "demo needs a name: retry or lost-answer",
                        new String[] {"demo", "retry", "--url", "x"},
                        "demo retry takes no options, got '--url'",
                        new String[] {"demo", "lost-answer", "--url", "http://localhost:8080"},
                        "demo lost-answer --url needs --api-key KEY (./run create-account prints one)",
                        new String[] {"demo", "lost-answer", "--api-key", "k"},
                        "--api-key only applies with --url (the embedded server makes its own key)",
                        new String[] {"demo", "lost-answer", "--url", "ftp://x", "--api-key", "k"},
                        "--url must be an http(s) URL such as http://localhost:8080, was 'ftp://x'",
                        new String[] {"demo", "lost-answer", "--timeout", "0"},
                        "--timeout must be milliseconds from 1 to 60000, was '0'",
                        new String[] {"demo", "lost-answer", "--bank", "1"},
                        "unknown option '--bank' for demo lost-answer")
                .forEach(
                        (args, message) -> assertThat(CommandLine.parse(args)).isEqualTo(new Command.Invalid(message)));
        assertThat(CommandLine.USAGE).contains("demo retry").contains("demo lost-answer [--url URL --api-key K]");
    }

    @Test
    void aBadDemoCommandLineExitsWithTwo() {
        assertThat(Main.run(new String[] {"demo", "nope"}, Map.of(), out(), err()))
                .isEqualTo(Main.USAGE);
        assertThat(err.toString(UTF_8)).contains("demo needs a name: retry or lost-answer");
    }
}

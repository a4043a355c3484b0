package dev.retrysafe.server.cli;

import dev.retrysafe.client.Sleeper;
import dev.retrysafe.server.bank.Bank;
import java.net.URI;
import java.time.Clock;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.random.RandomGenerator;

/**
 * What the demos take from the world, so that their tests run them without waiting: the client's
 * clock, sleeper and randomness, how the embedded server's bank spends its time, and who is told
 * when the embedded server is up (its URI and API key).
 *
 * @param clock the retrying client's clock
 * @param sleeper how the retrying client waits
 * @param random the jitter
 * @param bankProcessing the embedded server's bank
 * @param embeddedServerStarted told the embedded server's URI and API key once it listens
 */
public record DemoEnvironment(
        Clock clock,
        Sleeper sleeper,
        RandomGenerator random,
        Bank.Processing bankProcessing,
        BiConsumer<URI, String> embeddedServerStarted) {

    /** Checks the values. */
    public DemoEnvironment {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(bankProcessing, "bankProcessing");
        Objects.requireNonNull(embeddedServerStarted, "embeddedServerStarted");
    }

    /** Real time, real waiting, a real bank. */
    public static DemoEnvironment system() {
        return new DemoEnvironment(
                Clock.systemUTC(),
                Sleeper.system(),
                RandomGenerator.getDefault(),
                Bank.Processing.SLEEP,
                (uri, key) -> {});
    }
}

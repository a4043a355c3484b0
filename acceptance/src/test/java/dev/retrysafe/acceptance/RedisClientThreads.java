package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The threads of Redis clients (Lettuce's event loops, timers and reconnection watchdogs), so a
 * test can check that stopping its servers released them: a rate-limit store left open would
 * keep reconnecting to a Redis that is gone.
 */
final class RedisClientThreads {

    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private RedisClientThreads() {}

    /** The Redis client threads alive now. */
    static Set<Thread> alive() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("lettuce-") && t.isAlive())
                .collect(Collectors.toSet());
    }

    /** Waits (bounded) until no Redis client thread is alive that was not alive in {@code before}. */
    static void assertNoneLeftSince(Set<Thread> before) {
        await("Redis client threads stopping")
                .atMost(DEADLINE)
                .untilAsserted(
                        () -> assertThat(alive()).as("Redis client threads").isSubsetOf(before));
    }
}

package dev.retrysafe.ratelimit.redis;

import dev.retrysafe.testkit.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A test with a Redis server of its own (which it may kill, freeze and restart) and the store it
 * builds on it: the server is started before each test, and the store and the server are closed
 * after it.
 */
abstract class PrivateRedisTest {

    protected RedisServerProcess server;
    /** The store under test, if the test built one. */
    protected RedisRateLimitStore store;

    @BeforeEach
    void startRedis() {
        server = RedisServerProcess.start();
    }

    @AfterEach
    void stopEverything() {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            server.close();
        }
    }
}

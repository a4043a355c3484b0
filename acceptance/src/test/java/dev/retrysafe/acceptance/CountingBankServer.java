package dev.retrysafe.acceptance;

import dev.retrysafe.server.RetrysafeServer;
import dev.retrysafe.server.bank.Bank;
import dev.retrysafe.server.config.ConfigLoader;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;

/**
 * Test only: the Retrysafe server, started from its {@code --config} file and environment like
 * {@code Main}, whose simulated bank counts the charges running at once in a Redis shared by every
 * instance. Each charge increments {@code <counter>:running} as it starts (raising
 * {@code <counter>:most} to the new count when higher) and decrements it when it ends, so a test
 * reads the most payment handlers ever running at once across all processes, exactly. Arguments:
 * the config file, the counting Redis's URI, the counter's key prefix.
 */
final class CountingBankServer {

    /** Counts one more charge running and keeps the most ever seen; returns the count. */
    static final String ENTER = """
            local n = redis.call('INCR', KEYS[1])
            if n > tonumber(redis.call('GET', KEYS[2]) or '0') then redis.call('SET', KEYS[2], n) end
            return n
            """;

    private CountingBankServer() {}

    public static void main(String[] args) throws Exception {
        Path config = Path.of(args[0]);
        RedisClient client = RedisClient.create(args[1]);
        StatefulRedisConnection<String, String> connection = client.connect();
        RedisCommands<String, String> redis = connection.sync();
        String[] keys = {args[2] + "running", args[2] + "most"};
        Bank.Processing counting = (chargeKey, latency) -> {
            redis.eval(ENTER, ScriptOutputType.INTEGER, keys);
            try {
                Bank.Processing.SLEEP.process(chargeKey, latency);
            } finally {
                redis.decr(keys[0]);
            }
        };
        RetrysafeServer server = RetrysafeServer.start(
                ConfigLoader.load(config, System.getenv()), Clock.systemUTC(), System.out, counting);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            connection.close();
            client.shutdown();
            stopped.countDown();
        }));
        stopped.await();
    }
}

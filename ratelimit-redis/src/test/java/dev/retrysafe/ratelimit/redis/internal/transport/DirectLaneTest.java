package dev.retrysafe.ratelimit.redis.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.redis.internal.KeyLayout;
import dev.retrysafe.ratelimit.redis.internal.ScriptCall;
import dev.retrysafe.testkit.RedisServerProcess;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lane on its own: a connection that Redis closed while it was unused is found out before a
 * script goes on it (so the decision goes through Lettuce instead of failing), and a Redis that
 * refuses to name the connection still gets a lane.
 */
class DirectLaneTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private final Policy policy = Policy.builder("p")
            .algorithm(Algorithm.GCRA)
            .limit(3, Duration.ofHours(1))
            .build();
    private RedisServerProcess server;
    private DirectLane lane;
    private final Deadlines deadlines = new Deadlines("direct-lane-test");

    @AfterEach
    void closeEverything() {
        try {
            if (lane != null) {
                lane.close();
            }
        } finally {
            deadlines.close();
            if (server != null) {
                server.close();
            }
        }
    }

    @Test
    void aConnectionRedisClosedWhileUnusedIsFoundOutBeforeAScriptGoesOnIt() {
        server = RedisServerProcess.start();
        lane = DirectLane.of(RedisURI.create(server.uri()), TIMEOUT, Duration.ZERO, SpinWait.DEFAULT_LIMIT, deadlines)
                .orElseThrow();
        lane.awaitFirstAttempt();
        assertThat(lane.tryRun(call(), TIMEOUT)).isNotNull();

        server.kill();
        server.restart();

        // the PING before the script finds the old connection closed: nothing sent, no failure
        assertThat(lane.tryRun(call(), TIMEOUT)).isNull();
        await().atMost(Duration.ofSeconds(20)).until(lane::connected);
        List<Object> reply = lane.tryRun(call(), TIMEOUT);
        assertThat(reply).isNotNull();
        // remaining and retryAfter: allowed with a full budget less one, on the restarted (empty) Redis
        assertThat(List.of(reply.get(1), reply.get(3))).containsExactly(policy.quota() - 1, 0L);
    }

    @Test
    void aRedisThatRefusesToNameTheConnectionStillGetsALane() throws Exception {
        List<String> commands = new CopyOnWriteArrayList<>();
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread redis = Thread.ofVirtual().start(() -> {
                try (Socket s = fake.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    commands.add(new String(RespWire.readCommand(in), StandardCharsets.UTF_8));
                    out.write(ascii("-NOPERM this user has no permissions to run the 'client|setname' command\r\n"));
                    out.flush();
                    commands.add(new String(RespWire.readCommand(in), StandardCharsets.UTF_8));
                    out.write(ascii("*2\r\n:1\r\n:1\r\n"));
                    out.flush();
                    in.read(); // until the lane closes
                } catch (IOException e) {
                    // the assertions below say what went wrong
                }
            });
            lane = DirectLane.of(
                            RedisURI.create("redis://127.0.0.1:" + fake.getLocalPort()),
                            TIMEOUT,
                            Duration.ofHours(1),
                            SpinWait.DEFAULT_LIMIT,
                            deadlines)
                    .orElseThrow();
            lane.awaitFirstAttempt();
            assertThat(lane.connected()).isTrue();

            assertThat(lane.tryRun(call(), TIMEOUT)).containsExactly(1L, 1L);
            assertThat(commands).hasSize(2);
            assertThat(commands.get(0)).contains("SETNAME");
            assertThat(commands.get(1)).startsWith("*").contains("EVALSHA");
            lane.close();
            assertThat(redis.join(Duration.ofSeconds(5))).isTrue();
        }
    }

    private ScriptCall call() {
        return ScriptCall.of(
                new KeyLayout("rs-test:"),
                "a:acct_1",
                List.of(new Charge(policy, "key-1", 1)),
                ScriptCall.Mode.CHARGE,
                OptionalLong.empty(),
                ScriptCall.number(0));
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}

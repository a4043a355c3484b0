package dev.retrysafe.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.config.RedisConfig;
import dev.retrysafe.testkit.RedisClusterProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code /health} and {@code /ready}. */
class ProbesTest {

    @Test
    void healthAndReadyAnswerWithoutAuthentication() {
        try (TestServer server = TestServer.h2().start()) {
            Api anonymous = new Api(server.baseUri(), null);

            assertThat(anonymous.get("/health").status()).isEqualTo(200);
            Api.Answer ready = anonymous.get("/ready");
            assertThat(ready.status()).isEqualTo(200);
            assertThat(ready.body().get("checks").get("database").asText()).isEqualTo("ok");
        }
    }

    @Test
    void anUnreachableRedisLeavesTheInstanceReadyButDegraded() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        RedisConfig redis = new RedisConfig(URI.create("redis://127.0.0.1:" + closedPort));
        try (TestServer server =
                TestServer.h2().configure(c -> c.withRedis(redis)).start()) {
            Api.Answer ready = new Api(server.baseUri(), null).get("/ready");

            // Redis holds only rate-limit counters, shared by every instance: failing readiness for
            // it would take every instance out at once; the policies' fail modes decide instead
            assertThat(ready.status()).isEqualTo(200);
            assertThat(ready.body().get("status").asText()).isEqualTo("degraded");
            assertThat(ready.body().get("checks").get("redis").asText()).isEqualTo("unreachable");
            assertThat(ready.body().get("checks").get("database").asText()).isEqualTo("ok");
            assertThat(new Api(server.baseUri(), null).get("/health").status()).isEqualTo(200);
        }
    }

    @Test
    void readyPingsRedisWithResp() throws Exception {
        ServerSocket fakeRedis = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        Thread responder = Thread.ofVirtual().start(() -> answerPings(fakeRedis));
        RedisConfig redis = new RedisConfig(URI.create("redis://127.0.0.1:" + fakeRedis.getLocalPort()));
        try (TestServer server =
                TestServer.h2().configure(c -> c.withRedis(redis)).start()) {
            Api.Answer ready = new Api(server.baseUri(), null).get("/ready");

            assertThat(ready.status()).as(ready.raw().body()).isEqualTo(200);
            assertThat(ready.body().get("checks").get("redis").asText()).isEqualTo("ok");
        } finally {
            fakeRedis.close(); // ends the responder's accept()
            responder.join(5000);
        }
        assertThat(responder.isAlive()).isFalse();
    }

    @Test
    void readyReportsARedisClusterThatServesAndOneThatDoesNot() throws IOException {
        try (RedisClusterProcess cluster = RedisClusterProcess.start()) {
            RedisConfig redis = new RedisConfig(URI.create("redis-cluster://" + cluster.hostsAndPorts()));
            try (TestServer server =
                    TestServer.h2().configure(c -> c.withRedis(redis)).start()) {
                Api.Answer ready = new Api(server.baseUri(), null).get("/ready");

                assertThat(ready.status()).as(ready.raw().body()).isEqualTo(200);
                assertThat(ready.body().get("status").asText()).isEqualTo("ready");
                assertThat(ready.body().get("checks").get("redis").asText()).isEqualTo("ok");
            }
        }
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        RedisConfig gone = new RedisConfig(URI.create("redis-cluster://127.0.0.1:" + closedPort));
        try (TestServer server =
                TestServer.h2().configure(c -> c.withRedis(gone)).start()) {
            Api.Answer ready = new Api(server.baseUri(), null).get("/ready");

            assertThat(ready.status()).isEqualTo(200);
            assertThat(ready.body().get("status").asText()).isEqualTo("degraded");
            assertThat(ready.body().get("checks").get("redis").asText()).isEqualTo("unreachable");
        }
    }

    /** Answers +PONG to a RESP PING, like Redis. */
    private static void answerPings(ServerSocket server) {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                InputStream in = s.getInputStream();
                byte[] expected = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
                byte[] got = in.readNBytes(expected.length);
                if (new String(got, StandardCharsets.US_ASCII)
                        .equals(new String(expected, StandardCharsets.US_ASCII))) {
                    s.getOutputStream().write("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
                }
            } catch (IOException e) {
                return; // closed at the end of the test
            }
        }
    }
}

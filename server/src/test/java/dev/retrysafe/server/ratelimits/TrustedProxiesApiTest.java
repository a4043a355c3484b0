package dev.retrysafe.server.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.Scope;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.server.config.ServerConfig;
import dev.retrysafe.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Behind a trusted load balancer, {@code ip} limits count the clients that {@code X-Forwarded-For}
 * names; from anyone else, the header is ignored and the connection's peer is counted.
 */
class TrustedProxiesApiTest {

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-03T10:00:03Z"));
    private final Policy perAddress = Policy.builder("per-ip")
            .scope(Scope.ip())
            .limit(5, Duration.ofMinutes(1))
            .build();

    private TestServer start(List<String> trusted) {
        RateLimitConfig limits = ServerConfig.defaults()
                .rateLimits()
                .withPolicies(List.of(perAddress))
                .withStore(RateLimitConfig.Store.MEMORY)
                .withTrustedProxies(trusted);
        return TestServer.h2().clock(clock).rateLimits(limits).start();
    }

    private static long remaining(Api api, String forwardedFor) {
        Api.Answer a = api.send(api.request("/v1/payments")
                .header("X-Forwarded-For", forwardedFor)
                .GET()
                .build());
        assertThat(a.status()).isEqualTo(200);
        return Long.parseLong(a.header("X-RateLimit-Remaining"));
    }

    @Test
    void behindATrustedProxyEachForwardedClientHasItsOwnBudget() {
        try (TestServer server = start(List.of("127.0.0.0/8", "::1/128"))) {
            Api api = Api.of(server);

            assertThat(remaining(api, "198.51.100.1")).isEqualTo(4);
            assertThat(remaining(api, "198.51.100.1")).isEqualTo(3);
            assertThat(remaining(api, "198.51.100.2"))
                    .as("another client behind the same proxy")
                    .isEqualTo(4);
            // what the client wrote itself, left of the proxy's entry, is not believed
            assertThat(remaining(api, "203.0.113.50, 198.51.100.2")).isEqualTo(3);
        }
    }

    @Test
    void withoutTrustedProxiesTheHeaderIsIgnored() {
        try (TestServer server = start(List.of())) {
            Api api = Api.of(server);

            assertThat(remaining(api, "198.51.100.1")).isEqualTo(4);
            assertThat(remaining(api, "198.51.100.2"))
                    .as("a forged header buys no new budget")
                    .isEqualTo(3);
        }
    }
}

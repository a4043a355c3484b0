package dev.retrysafe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.ratelimit.ConcurrencyPolicy;
import dev.retrysafe.ratelimit.FailMode;
import dev.retrysafe.ratelimit.Policy;
import dev.retrysafe.ratelimit.RequestFacts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code rate_limits.policies[].kind: concurrency}: read beside the rate policies, every error named. */
class ConcurrencyPoliciesConfigTest {

    @TempDir
    Path dir;

    private RateLimitConfig load(String policies) throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, "rate_limits:\n  store: memory\n  policies:\n" + policies);
        return ConfigLoader.load(file, Map.of()).rateLimits();
    }

    @Test
    void readsConcurrencyEntriesApartFromRatePoliciesKeepingTheirOrder() throws IOException {
        RateLimitConfig limits = load("""
                    - name: per-key
                      scope: api_key
                      quota: 10
                      window: 1s
                    - name: in-flight
                      kind: concurrency
                      scope: account
                      limit: 5
                      lease: 3s
                      fail: closed
                      route_group: reports
                      applies_to: authenticated
                    - name: slow
                      kind: concurrency
                      scope: api_key
                      limit: 2
                    - name: explicit
                      kind: rate
                      scope: ip
                      quota: 1
                      window: 1m
                """);

        assertThat(limits.policies()).extracting(Policy::name).containsExactly("per-key", "explicit");
        assertThat(limits.concurrencyPolicies())
                .extracting(ConcurrencyPolicy::name)
                .containsExactly("in-flight", "slow");
        ConcurrencyPolicy inFlight = limits.concurrencyPolicies().get(0);
        assertThat(inFlight.limit()).isEqualTo(5);
        assertThat(inFlight.lease()).isEqualTo(Duration.ofSeconds(3));
        assertThat(inFlight.failMode()).isEqualTo(FailMode.CLOSED);
        assertThat(inFlight.routeGroup()).isEqualTo("reports");
        assertThat(inFlight.scope().keyFor(new RequestFacts("k", "acct_1", "10.0.0.1", "reports", null, 1)))
                .isEqualTo("acct_1");
        assertThat(inFlight.slotFor(new RequestFacts("k", "acct_1", "10.0.0.1", "payments", null, 1)))
                .as("another route group")
                .isNull();
        ConcurrencyPolicy slow = limits.concurrencyPolicies().get(1);
        assertThat(slow.lease()).isEqualTo(ConcurrencyPolicy.DEFAULT_LEASE);
        assertThat(slow.failMode()).isEqualTo(FailMode.OPEN);
    }

    @Test
    void aMistakeNamesTheEntryAndTheField() {
        assertThatThrownBy(() -> load("""
                    - name: c
                      kind: concurrency
                      scope: api_key
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rate_limits.policies[0].limit is required");
        assertThatThrownBy(() -> load("""
                    - name: c
                      kind: concurrency
                      scope: api_key
                      limit: 0
                """))
                .hasMessageContaining("rate_limits.policies[0].limit must be 1 to 1000000, was 0");
        assertThatThrownBy(() -> load("""
                    - name: c
                      kind: concurrency
                      scope: api_key
                      limit: 5
                      quota: 5
                """)).hasMessageContaining("unknown setting 'rate_limits.policies[0].quota'");
        assertThatThrownBy(() -> load("""
                    - name: c
                      kind: concurrency
                      scope: api_key
                      limit: 5
                      lease: 100ms
                """))
                .hasMessageContaining("rate_limits.policies[0]")
                .hasMessageContaining("lease of policy c must be 1s to 1h");
        assertThatThrownBy(() -> load("""
                    - name: c
                      kind: parallel
                      scope: api_key
                """))
                .hasMessageContaining("rate_limits.policies[0].kind must be rate or concurrency, was 'parallel'");
        assertThatThrownBy(() -> load("""
                    - name: same
                      scope: api_key
                      quota: 1
                      window: 1s
                    - name: same
                      kind: concurrency
                      scope: api_key
                      limit: 1
                """)).hasMessageContaining("policy names must be unique, 'same' is used twice");
    }
}

package dev.retrysafe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code redis.url}: one server, or a Redis Cluster by its seed nodes. */
class RedisConfigTest {

    @TempDir
    Path dir;

    @Test
    void aClusterUrlNamesItsSeedNodesWithTheirPortsAndCredentials() {
        ServerConfig c = ConfigLoader.load(
                null,
                Map.of("RETRYSAFE_REDIS_URL", "redis-cluster://:s3cret@10.0.0.1:7000,10.0.0.2,redis-c.internal:7002"));

        assertThat(c.redis().configured()).isTrue();
        assertThat(c.redis().cluster()).isTrue();
        assertThat(c.redis().nodes())
                .containsExactly(
                        URI.create("redis://:s3cret@10.0.0.1:7000"),
                        URI.create("redis://:s3cret@10.0.0.2:6379"),
                        URI.create("redis://:s3cret@redis-c.internal:7002"));
        assertThat(c.redis().port()).isEqualTo(7000);
        // rate_limits.store: auto puts the counters in any configured Redis, a Cluster too
        assertThat(c.rateLimits().store()).isEqualTo(RateLimitConfig.Store.AUTO);
    }

    @Test
    void aTlsClusterUrlFromTheFileGivesTlsNodes() throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, """
                redis:
                  url: rediss-cluster://app:pw@redis-a.internal:6380,redis-b.internal:6380/
                rate_limits:
                  store: redis
                """);

        RedisConfig redis = ConfigLoader.load(file, Map.of()).redis();

        assertThat(redis.cluster()).isTrue();
        assertThat(redis.nodes())
                .containsExactly(
                        URI.create("rediss://app:pw@redis-a.internal:6380"),
                        URI.create("rediss://app:pw@redis-b.internal:6380"));
    }

    @Test
    void aSingleServerUrlIsOneNode() {
        RedisConfig redis = ConfigLoader.load(null, Map.of("RETRYSAFE_REDIS_URL", "redis://127.0.0.1/2"))
                .redis();

        assertThat(redis.cluster()).isFalse();
        assertThat(redis.nodes()).containsExactly(URI.create("redis://127.0.0.1:6379/2"));
        assertThat(redis.url()).isEqualTo(URI.create("redis://127.0.0.1/2"));
        assertThat(ConfigLoader.load(null, Map.of()).redis().nodes()).isEmpty();
    }

    @Test
    void describeHidesTheCredentialsForTheStartWarning() {
        RedisConfig redis = ConfigLoader.load(null, Map.of("RETRYSAFE_REDIS_URL", "redis://app:s3cret@10.0.0.7:6380/1"))
                .redis();

        assertThat(redis.describe()).isEqualTo("redis://***@10.0.0.7:6380/1");
        assertThat(ConfigLoader.load(null, Map.of()).redis().describe()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "redis-cluster://:s3cret@h1:7000,,h2:7001", // an empty node
                "redis-cluster://:s3cret@h1:port,h2:7001", // a port that is no number
                "redis-cluster://:s3cret@h1:70000", // a port out of range
                "redis-cluster://:s3cret@h1:7000,h2:7001/1", // a database: a Cluster has only 0
                "redis-cluster://:s3cret@h1:7000?timeout=5s", // options
                "redis-cluster:///", // no node at all
                "redis-sentinel://:s3cret@h1:26379", // not a kind of Redis the server speaks
            })
    void aBadRedisUrlNamesTheSettingAndTheVariableButNotThePassword(String url) {
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("RETRYSAFE_REDIS_URL", url)))
                .as(url)
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.setting()).isEqualTo("redis.url"))
                .hasMessageStartingWith("redis.url ")
                .hasMessageContaining("RETRYSAFE_REDIS_URL")
                .hasMessageNotContaining("s3cret");
    }
}

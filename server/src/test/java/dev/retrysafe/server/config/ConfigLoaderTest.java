package dev.retrysafe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.idempotency.ClaimMode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    @TempDir
    Path dir;

    private Path yaml(String text) throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void thePoolSizeDefaultsByDatabaseAndASetOneWins() throws IOException {
        assertThat(ConfigLoader.load(yaml("database:\n  url: postgresql://u@127.0.0.1:5432/db\n"), Map.of())
                        .database()
                        .poolSize())
                .isEqualTo(10);
        assertThat(ConfigLoader.load(yaml("database:\n  url: jdbc:h2:mem:x\n"), Map.of())
                        .database()
                        .poolSize())
                .isEqualTo(64);
        assertThat(ConfigLoader.load(yaml("database:\n  url: jdbc:h2:./data/x\n"), Map.of())
                        .database()
                        .poolSize())
                .isEqualTo(64);
        // an H2 server over the network is a server like PostgreSQL: the embedded figure does not apply
        assertThat(ConfigLoader.load(yaml("database:\n  url: jdbc:h2:tcp://127.0.0.1:9092/x\n"), Map.of())
                        .database()
                        .poolSize())
                .isEqualTo(10);
        assertThat(ConfigLoader.load(yaml("database:\n  url: jdbc:h2:ssl://127.0.0.1:9092/x\n"), Map.of())
                        .database()
                        .poolSize())
                .isEqualTo(10);
        assertThat(ConfigLoader.load(
                                yaml("database:\n  url: postgresql://u@127.0.0.1:5432/db\n  pool_size: 7\n"), Map.of())
                        .database()
                        .poolSize())
                .isEqualTo(7);
        assertThat(ConfigLoader.load(yaml("database:\n  pool_size: 12\n"), Map.of())
                        .database()
                        .poolSize())
                .isEqualTo(12);
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        ServerConfig c = ConfigLoader.load(null, Map.of());

        assertThat(c.port()).isEqualTo(8080);
        assertThat(c.host()).isEqualTo("0.0.0.0");
        assertThat(c.dataDir()).isEqualTo(Path.of("./data"));
        assertThat(c.database().embedded()).isTrue();
        assertThat(c.database().poolSize()).isEqualTo(64);
        assertThat(c.redis().configured()).isFalse();
        assertThat(c.bank()).isEqualTo(new BankConfig(Duration.ofMillis(100), 0, 0));
        assertThat(c.idempotency())
                .isEqualTo(
                        new IdempotencyConfig(true, Duration.ofSeconds(30), Duration.ofHours(24), Duration.ofHours(1)));
        assertThat(c.maxBodyBytes()).isEqualTo(1024 * 1024);
        assertThat(c.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.bootstrapApiKeys()).isEmpty();
    }

    @Test
    void fileOverridesOnlyWhatItNames() throws IOException {
        ServerConfig c = ConfigLoader.load(yaml("""
                port: 9000
                bank:
                  latency: 250ms
                  decline_rate: 0.25
                idempotency:
                  enabled: false
                  retention: 2d
                """), Map.of());

        assertThat(c.port()).isEqualTo(9000);
        assertThat(c.bank()).isEqualTo(new BankConfig(Duration.ofMillis(250), 0.25, 0));
        assertThat(c.idempotency().enabled()).isFalse();
        assertThat(c.idempotency().retention()).isEqualTo(Duration.ofDays(2));
        assertThat(c.idempotency().lease()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void environmentOverridesTheFile() throws IOException {
        ServerConfig c = ConfigLoader.load(
                yaml("port: 9000\n"),
                Map.of(
                        "PORT", "7000",
                        "RETRYSAFE_DATA_DIR", "/var/lib/rs",
                        "RETRYSAFE_BANK_LATENCY_MS", "0",
                        "RETRYSAFE_REDIS_URL", "redis://127.0.0.1:6380",
                        "RETRYSAFE_BOOTSTRAP_API_KEYS", "key_aaaaaaaaaaaaaaaa, key_bbbbbbbbbbbbbbbb"));

        assertThat(c.port()).isEqualTo(7000);
        assertThat(c.dataDir()).isEqualTo(Path.of("/var/lib/rs"));
        assertThat(c.bank().latency()).isZero();
        assertThat(c.redis().url()).isEqualTo(URI.create("redis://127.0.0.1:6380"));
        assertThat(c.redis().port()).isEqualTo(6380);
        assertThat(c.bootstrapApiKeys()).containsExactly("key_aaaaaaaaaaaaaaaa", "key_bbbbbbbbbbbbbbbb");
    }

    @Test
    void redisKeyPrefixComesFromItsVariable() throws IOException {
        ServerConfig c = ConfigLoader.load(
                yaml("rate_limits:\n  redis_key_prefix: \"file:rl:\"\n"),
                Map.of("RETRYSAFE_REDIS_KEY_PREFIX", "staging:rl:"));

        assertThat(c.rateLimits().redisKeyPrefix()).isEqualTo("staging:rl:");
        assertThat(ConfigLoader.load(null, Map.of()).rateLimits().redisKeyPrefix())
                .isEqualTo("retrysafe:rl:");
    }

    @Test
    void postgresqlUrlFormBecomesJdbcWithCredentials() {
        ServerConfig c = ConfigLoader.load(
                null,
                Map.of(
                        "RETRYSAFE_DATABASE_URL",
                        "postgresql://app:s%40cret@db.internal:5433/payments?sslmode=require"));

        assertThat(c.database().url()).isEqualTo("jdbc:postgresql://db.internal:5433/payments?sslmode=require");
        assertThat(c.database().user()).isEqualTo("app");
        assertThat(c.database().password()).isEqualTo("s@cret");
        assertThat(c.database().embedded()).isFalse();
    }

    @Test
    void explicitUserWinsOverTheUrlsUser() {
        ServerConfig c = ConfigLoader.load(
                null,
                Map.of(
                        "RETRYSAFE_DATABASE_URL", "postgresql://app@127.0.0.1/db",
                        "RETRYSAFE_DATABASE_USER", "admin",
                        "RETRYSAFE_DATABASE_PASSWORD", "pw"));

        assertThat(c.database().user()).isEqualTo("admin");
        assertThat(c.database().password()).isEqualTo("pw");
        assertThat(c.database().url()).isEqualTo("jdbc:postgresql://127.0.0.1/db");
    }

    @Test
    void jdbcUrlsPassThrough() {
        assertThat(ConfigLoader.load(null, Map.of("RETRYSAFE_DATABASE_URL", "jdbc:h2:mem:x"))
                        .database()
                        .url())
                .isEqualTo("jdbc:h2:mem:x");
    }

    @Test
    void unknownKeyIsNamed() throws IOException {
        Path file = yaml("bank:\n  latncy: 5ms\n");

        assertThatThrownBy(() -> ConfigLoader.load(file, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("bank.latncy");
    }

    @Test
    void badValuesNameTheSettingAndTheValue() throws IOException {
        assertThatThrownBy(() -> ConfigLoader.load(yaml("bank:\n  latency: soon\n"), Map.of()))
                .hasMessageContaining("bank.latency")
                .hasMessageContaining("soon");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("port: 70000\n"), Map.of()))
                .hasMessageContaining("port")
                .hasMessageContaining("70000");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("bank:\n  error_rate: 1.5\n"), Map.of()))
                .hasMessageContaining("bank.error_rate")
                .hasMessageContaining("1.5");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("idempotency:\n  enabled: maybe\n"), Map.of()))
                .hasMessageContaining("idempotency.enabled")
                .hasMessageContaining("maybe");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("database:\n  pool_size: 0\n"), Map.of()))
                .hasMessageContaining("database.pool_size")
                .hasMessageContaining("0");
        // Flyway takes two connections at start: with one, the server stopped on a pool timeout
        assertThatThrownBy(() -> ConfigLoader.load(yaml("database:\n  pool_size: 1\n"), Map.of()))
                .hasMessageContaining(
                        "database.pool_size must be between 2 and 1000 (the migrations at start take two");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("limits:\n  max_body_bytes: -1\n"), Map.of()))
                .hasMessageContaining("limits.max_body_bytes");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("idempotency:\n  lease: 2h\n"), Map.of()))
                .hasMessageContaining("idempotency.lease")
                .hasMessageContaining("2h");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("shutdown: 5s\n"), Map.of()))
                .hasMessageContaining("shutdown");
    }

    @Test
    void jobsDefaultsAreTheDocumentedOnes() {
        assertThat(ConfigLoader.load(null, Map.of()).jobs())
                .isEqualTo(new JobsConfig(4, Duration.ofSeconds(30), 3, Duration.ofHours(24), Duration.ZERO));
    }

    @Test
    void fileOverridesEveryJobsSetting() throws IOException {
        JobsConfig jobs = ConfigLoader.load(yaml("""
                jobs:
                  workers: 16
                  lease: 2m
                  max_attempts: 5
                  result_retention: 7d
                  report_min_duration: 1500ms
                """), Map.of()).jobs();

        assertThat(jobs)
                .isEqualTo(new JobsConfig(16, Duration.ofMinutes(2), 5, Duration.ofDays(7), Duration.ofMillis(1500)));
        assertThat(ConfigLoader.load(yaml("jobs:\n  lease: 10s\n"), Map.of()).jobs())
                .as("a file naming one setting keeps the others")
                .isEqualTo(new JobsConfig(4, Duration.ofSeconds(10), 3, Duration.ofHours(24), Duration.ZERO));
    }

    @Test
    void badJobsValuesStopTheLoadNamingTheSetting() {
        assertThatThrownBy(() -> ConfigLoader.load(yaml("jobs:\n  lease: -1s\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("jobs.lease")
                .hasMessageContaining("-1s");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("jobs:\n  lease: abc\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("jobs.lease")
                .hasMessageContaining("abc");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("jobs:\n  lease: 500ms\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("jobs.lease")
                .hasMessageContaining("500ms");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("jobs:\n  workers: 0\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("jobs.workers")
                .hasMessageContaining("0");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("jobs:\n  workers: many\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("jobs.workers")
                .hasMessageContaining("many");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("jobs:\n  max_attempts: 101\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("jobs.max_attempts")
                .hasMessageContaining("101");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("jobs:\n  result_retention: 30s\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("jobs.result_retention")
                .hasMessageContaining("30s");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("jobs:\n  report_min_duration: 2h\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("jobs.report_min_duration")
                .hasMessageContaining("2h");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("jobs:\n  leese: 10s\n"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("jobs.leese");
    }

    @Test
    void claimsFollowTheDatabaseUnlessChosen() throws IOException {
        Map<String, String> postgres = Map.of("RETRYSAFE_DATABASE_URL", "jdbc:postgresql://127.0.0.1/db");
        Map<String, String> externalH2 = Map.of("RETRYSAFE_DATABASE_URL", "jdbc:h2:tcp://127.0.0.1/shared");
        ServerConfig embedded = ConfigLoader.load(null, Map.of());
        ServerConfig onPostgres = ConfigLoader.load(null, postgres);
        ServerConfig onExternalH2 = ConfigLoader.load(null, externalH2);

        assertThat(embedded.idempotency().claims()).isEqualTo(IdempotencyConfig.Claims.AUTO);
        assertThat(embedded.idempotency().claimMode(embedded.database())).isEqualTo(ClaimMode.IN_PROCESS);
        assertThat(onPostgres.idempotency().claimMode(onPostgres.database()))
                .isEqualTo(ClaimMode.POSTGRES_ADVISORY_LOCKS);
        assertThat(onExternalH2.idempotency().claimMode(onExternalH2.database()))
                .as("several instances may share an external H2")
                .isEqualTo(ClaimMode.ROWS);

        ServerConfig rows = ConfigLoader.load(yaml("idempotency:\n  claims: rows\n"), postgres);
        assertThat(rows.idempotency().claimMode(rows.database())).isEqualTo(ClaimMode.ROWS);
        ServerConfig locksOnH2 = ConfigLoader.load(yaml("idempotency:\n  claims: locks\n"), externalH2);
        assertThatThrownBy(() -> locksOnH2.idempotency().claimMode(locksOnH2.database()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("idempotency.claims");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("idempotency:\n  claims: maybe\n"), Map.of()))
                .hasMessageContaining("idempotency.claims")
                .hasMessageContaining("maybe");
    }

    @Test
    void badEnvironmentValuesNameTheVariable() {
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("PORT", "eighty")))
                .hasMessageContaining("port")
                .hasMessageContaining("eighty")
                .hasMessageContaining("PORT");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("RETRYSAFE_BANK_LATENCY_MS", "100ms")))
                .hasMessageContaining("RETRYSAFE_BANK_LATENCY_MS")
                .hasMessageContaining("100ms");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("RETRYSAFE_DATABASE_URL", "mysql://x/y")))
                .hasMessageContaining("database.url")
                .hasMessageContaining("RETRYSAFE_DATABASE_URL");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("RETRYSAFE_REDIS_URL", "http://x")))
                .hasMessageContaining("redis.url");
        assertThatThrownBy(() -> ConfigLoader.load(null, Map.of("RETRYSAFE_BOOTSTRAP_API_KEYS", "short")))
                .hasMessageContaining("bootstrap_api_keys")
                .hasMessageNotContaining("short");
    }

    @Test
    void passwordsNeverAppearInErrors() {
        assertThatThrownBy(
                        () -> ConfigLoader.load(null, Map.of("RETRYSAFE_DATABASE_URL", "postgresql://u:topsecret@/")))
                .hasMessageContaining("database.url")
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void emptyFileKeepsDefaultsAndMissingFileIsNamed() throws IOException {
        assertThat(ConfigLoader.load(yaml(""), Map.of()).port()).isEqualTo(8080);
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("missing.yaml"), Map.of()))
                .hasMessageContaining("missing.yaml");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("- a\n- b\n"), Map.of()))
                .hasMessageContaining("mapping");
        assertThatThrownBy(() -> ConfigLoader.load(yaml("port: 1\nport: 2\n"), Map.of()))
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void durationsReadBackWhatTheyPrint() {
        for (String text : List.of("0ms", "250ms", "30s", "5m", "3h", "2d")) {
            assertThat(Durations.format(Durations.parse("x", text))).isEqualTo(text);
        }
    }
}

package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.idempotency.IdempotencyStore;
import dev.retrysafe.ratelimit.RateLimitStore;
import dev.retrysafe.servlet.DecisionListener;
import dev.retrysafe.servlet.IdempotencyFilter;
import dev.retrysafe.spring.autoconfigure.RetrysafeIdempotencyAutoConfiguration;
import dev.retrysafe.spring.autoconfigure.RetrysafeObservabilityAutoConfiguration;
import dev.retrysafe.spring.autoconfigure.RetrysafeRateLimitAutoConfiguration;
import dev.retrysafe.spring.autoconfigure.RetrysafeSchemaAutoConfiguration;
import dev.retrysafe.spring.autoconfigure.RetrysafeWebMvcAutoConfiguration;
import dev.retrysafe.spring.internal.HandlerLookup;
import dev.retrysafe.spring.internal.RateLimitFilters;
import dev.retrysafe.spring.internal.RetrysafeHealthIndicator;
import dev.retrysafe.spring.internal.RetrysafeSchema;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** Every piece is on by default when what it needs is there, off by its switch, and backs off for the app's own bean. */
class SwitchesTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    RetrysafeSchemaAutoConfiguration.class,
                    RetrysafeWebMvcAutoConfiguration.class,
                    RetrysafeIdempotencyAutoConfiguration.class,
                    RetrysafeRateLimitAutoConfiguration.class,
                    RetrysafeObservabilityAutoConfiguration.class))
            .withUserConfiguration(Meters.class)
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:switch_"
                    + UUID.randomUUID().toString().replace("-", "") + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1");

    @Configuration(proxyBeanMethods = false)
    static class Meters {
        @Bean
        MeterRegistry registry() {
            return new SimpleMeterRegistry();
        }
    }

    @Test
    void everyPieceIsOnByDefault() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(RetrysafeSchema.class);
            assertThat(context).hasSingleBean(HandlerLookup.class);
            assertThat(context).hasSingleBean(IdempotencyFilter.class);
            assertThat(context).hasSingleBean(RateLimitFilters.class);
            assertThat(context).hasSingleBean(RetrysafeHealthIndicator.class);
            assertThat(context).hasSingleBean(DecisionListener.class);
        });
    }

    @Test
    void idempotencyOff() {
        runner.withPropertyValues("retrysafe.idempotency.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(IdempotencyFilter.class);
            assertThat(context).doesNotHaveBean(IdempotencyStore.class);
            assertThat(context).hasSingleBean(RateLimitFilters.class);
        });
    }

    @Test
    void rateLimitsOff() {
        runner.withPropertyValues("retrysafe.rate-limits.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(RateLimitFilters.class);
            assertThat(context).doesNotHaveBean(RateLimitStore.class);
            assertThat(context).hasSingleBean(IdempotencyFilter.class);
        });
    }

    @Test
    void schemaOff() {
        runner.withPropertyValues("retrysafe.schema.enabled=false", "retrysafe.idempotency.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RetrysafeSchema.class);
                    assertThat(context).doesNotHaveBean(RetrysafeHealthIndicator.class);
                });
    }

    @Test
    void healthAndMetricsOff() {
        runner.withPropertyValues("retrysafe.health.enabled=false", "retrysafe.metrics.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RetrysafeHealthIndicator.class);
                    assertThat(context).doesNotHaveBean(DecisionListener.class);
                    assertThat(context).hasSingleBean(IdempotencyFilter.class);
                });
    }

    @Test
    void theAppsOwnBeansWin() {
        RateLimitStore own =
                dev.retrysafe.ratelimit.InMemoryRateLimitStore.builder().build();
        runner.withBean(RateLimitStore.class, () -> own)
                .withBean(RetrysafeCaller.class, () -> request -> "everyone")
                .run(context -> {
                    assertThat(context.getBean(RateLimitStore.class)).isSameAs(own);
                    assertThat(context.getBeansOfType(RetrysafeCaller.class)).hasSize(1);
                });
    }

    @RestController
    static class Typo {
        @RateLimited("writes") // the configuration defines "write"
        @PostMapping("/things")
        String create() {
            return "made";
        }
    }

    @Test
    void aRateLimitedNamingAnUndefinedPolicyStopsTheStartNamingTheMethodAndThePolicies() {
        WebApplicationContextRunner mvc = runner.withConfiguration(
                        AutoConfigurations.of(DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class))
                .withPropertyValues(
                        "retrysafe.rate-limits.policies.write.quota=5",
                        "retrysafe.rate-limits.policies.write.window=1s");
        mvc.withUserConfiguration(Typo.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("'writes'")
                    .hasMessageContaining("[write]");
        });
        // the same application without the typo starts: the check itself is not what fails
        mvc.run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aPolicyWithoutAWindowStopsTheStartNamingTheProperty() {
        runner.withPropertyValues("retrysafe.rate-limits.policies.p.quota=5").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("retrysafe.rate-limits.policies.p.window is required");
        });
    }

    @Test
    void withFlywayTheTablesAreMigratedOnceUnderRetrysafesOwnHistory() {
        WebApplicationContextRunner onOneDatabase = runner.withPropertyValues("spring.datasource.url=" + newDatabase());
        onOneDatabase.run(first -> {
            assertThat(first).hasNotFailed();
            assertThat(flywayVersions(first)).containsExactly("1", "2", "3");
        });
        onOneDatabase.run(second -> {
            assertThat(second).hasNotFailed();
            assertThat(flywayVersions(second)).as("nothing ran twice").containsExactly("1", "2", "3");
        });
    }

    @Test
    void withoutFlywayTheStarterRecordsTheVersionAndFlywayLaterStartsFromIt() {
        WebApplicationContextRunner onOneDatabase = runner.withPropertyValues("spring.datasource.url=" + newDatabase());
        onOneDatabase.withPropertyValues("retrysafe.schema.use-flyway=false").run(first -> {
            assertThat(first).hasNotFailed();
            RetrysafeSchema schema = first.getBean(RetrysafeSchema.class);
            assertThat(schema.recordedVersion()).isEqualTo(RetrysafeSchema.latestVersion());
            assertThat(schema.migrate()).as("a second run migrates nothing").isZero();
        });
        onOneDatabase.run(withFlyway -> {
            assertThat(withFlyway)
                    .as("Flyway takes the recorded version as its baseline")
                    .hasNotFailed();
            assertThat(flywayVersions(withFlyway)).containsExactly(String.valueOf(RetrysafeSchema.latestVersion()));
        });
    }

    @Test
    void aDatabaseMadeBeforeDeliveryV2GetsItsColumnsFromMigrationTwo() {
        WebApplicationContextRunner onOneDatabase = runner.withPropertyValues(
                "spring.datasource.url=" + newDatabase(), "retrysafe.schema.use-flyway=false");
        onOneDatabase.run(first -> {
            assertThat(first).hasNotFailed();
            RetrysafeSchema schema = first.getBean(RetrysafeSchema.class);
            // given the tables as the starter's first release left them: delivery schema 3, version 1 recorded
            org.springframework.jdbc.core.JdbcTemplate sql =
                    new org.springframework.jdbc.core.JdbcTemplate(schema.dataSource());
            for (String column : java.util.List.of("paused_at", "ordered", "custom_headers")) {
                sql.execute("ALTER TABLE webhook_endpoints DROP COLUMN " + column);
            }
            sql.execute("DROP INDEX deliveries_ordering");
            sql.execute("ALTER TABLE deliveries DROP COLUMN ordering_key");
            sql.execute("ALTER TABLE deliveries DROP COLUMN traceparent");
            sql.execute("DROP INDEX deliveries_created"); // retention
            sql.execute("ALTER TABLE deliveries DROP COLUMN ordering_seq");
            sql.execute("DROP TABLE delivery_ordering_keys");
            sql.execute("DROP INDEX deliveries_endpoint_due"); // delivery schema 5 (migration 3)
            sql.execute(
                    "CREATE INDEX deliveries_status_endpoint ON deliveries (status, endpoint_id, lease_expires_at)");
            sql.execute("CREATE INDEX deliveries_lease_token ON deliveries (lease_token)");
            sql.execute("DELETE FROM " + schema.historyTable() + " WHERE version IN (2, 3)");
            assertThat(schema.recordedVersion()).isEqualTo(1);

            // when the starter migrates, then versions 2 and 3 run and add them
            assertThat(schema.migrate()).isEqualTo(2);
            assertThat(schema.recordedVersion()).isEqualTo(3);
            assertThat(sql.queryForList(
                            "SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_NAME = 'DELIVERIES'",
                            String.class))
                    .contains("DELIVERIES_ENDPOINT_DUE")
                    .doesNotContain("DELIVERIES_STATUS_ENDPOINT", "DELIVERIES_LEASE_TOKEN");
            assertThat(sql.queryForObject(
                            "SELECT COUNT(*) FROM webhook_endpoints WHERE paused_at IS NULL AND ordered = FALSE"
                                    + " AND custom_headers IS NULL",
                            Integer.class))
                    .isZero();
            assertThat(sql.queryForObject("SELECT COUNT(*) FROM delivery_ordering_keys", Integer.class))
                    .isZero();
            assertThat(sql.queryForObject(
                            "SELECT COUNT(*) FROM deliveries WHERE ordering_key IS NULL AND traceparent IS NULL"
                                    + " AND ordering_seq IS NULL",
                            Integer.class))
                    .isZero();
        });
    }

    private static String newDatabase() {
        return "jdbc:h2:mem:schema_" + UUID.randomUUID().toString().replace("-", "")
                + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1";
    }

    /** The versions Flyway's history table lists as applied (a baseline included), in order. */
    private static java.util.List<String> flywayVersions(org.springframework.context.ApplicationContext context) {
        return new org.springframework.jdbc.core.JdbcTemplate(context.getBean(javax.sql.DataSource.class))
                .queryForList("SELECT * FROM \"retrysafe_schema_history_flyway\"").stream()
                        .filter(row -> Boolean.TRUE.equals(row.get("success")) && row.get("version") != null)
                        .map(row -> String.valueOf(row.get("version")))
                        .toList();
    }
}

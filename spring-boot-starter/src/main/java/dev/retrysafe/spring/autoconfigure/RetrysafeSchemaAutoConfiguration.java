package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.spring.internal.FlywaySchema;
import dev.retrysafe.spring.internal.RetrysafeSchema;
import java.sql.SQLException;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * Every Retrysafe table (idempotency keys, received webhooks, webhook delivery, jobs) on the
 * application's {@code DataSource}, created and migrated at start by the libraries' own scripts:
 * through a Flyway of Retrysafe's own when Flyway is on the classpath, else by the starter, each
 * with a history table of Retrysafe's own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "retrysafe.schema.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RetrysafeSchemaProperties.class)
public class RetrysafeSchemaAutoConfiguration {

    private static final String FLYWAY = "org.flywaydb.core.Flyway";

    @Bean
    @ConditionalOnMissingBean
    RetrysafeSchema retrysafeSchema(DataSource dataSource, RetrysafeSchemaProperties properties) throws SQLException {
        RetrysafeSchema schema = new RetrysafeSchema(dataSource, properties.getHistoryTable(), Clock.systemUTC());
        if (properties.isUseFlyway()
                && ClassUtils.isPresent(FLYWAY, RetrysafeSchemaAutoConfiguration.class.getClassLoader())) {
            FlywaySchema.migrate(dataSource, properties.getHistoryTable() + "_flyway", schema.recordedVersion());
        } else {
            schema.migrate();
        }
        return schema;
    }
}

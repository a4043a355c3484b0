package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.jobs.JobHandler;
import dev.retrysafe.jobs.Jobs;
import dev.retrysafe.spring.JobKind;
import dev.retrysafe.spring.RetrysafeJobs;
import dev.retrysafe.spring.internal.JobMeters;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.util.Map;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Jobs: the {@link RetrysafeJobs} scheduler over the application's {@link DataSource} (with the
 * jobs tables), running every {@link JobHandler} bean for its {@link JobKind} (or its bean name),
 * and Micrometer meters. {@code retrysafe.jobs.enabled=false} turns it off;
 * {@code retrysafe.jobs.workers-enabled=false} keeps enqueueing but runs nothing here.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = "retrysafe.jobs", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RetrysafeJobsProperties.class)
public final class RetrysafeJobsAutoConfiguration {

    private static final Pattern KIND = Pattern.compile("[a-z0-9_.-]{1,64}");

    /** The scheduler, with the handler beans registered. */
    @Bean
    @ConditionalOnMissingBean
    RetrysafeJobs retrysafeJobs(
            DataSource dataSource,
            RetrysafeJobsProperties properties,
            ListableBeanFactory beans,
            ObjectProvider<Clock> clock) {
        Jobs.Builder builder = Jobs.builder(dataSource)
                .clock(clock.getIfAvailable(Clock::systemUTC))
                .lease(properties.getLease())
                .maxAttempts(properties.getMaxAttempts())
                .resultRetention(properties.getResultRetention())
                .recordRetention(properties.getRecordRetention())
                .workers(properties.getWorkers())
                .pollInterval(properties.getPollInterval())
                .shutdownTimeout(properties.getShutdownTimeout())
                .purgeInterval(properties.getPurgeInterval());
        if (!properties.getInstanceId().isBlank()) {
            builder.instanceId(properties.getInstanceId());
        }
        for (Map.Entry<String, JobHandler> handler :
                beans.getBeansOfType(JobHandler.class).entrySet()) {
            JobKind kind = beans.findAnnotationOnBean(handler.getKey(), JobKind.class);
            String name = kind != null ? kind.value() : handler.getKey();
            if (kind == null && !KIND.matcher(name).matches()) {
                throw new IllegalStateException("JobHandler bean '" + name + "' needs @JobKind: its name is not a"
                        + " job kind (1 to 64 characters of [a-z0-9_.-])");
            }
            builder.handler(name, handler.getValue(), kind != null ? kind.maxConcurrency() : 1);
        }
        return new RetrysafeJobs(builder.build(), dataSource, properties.isWorkersEnabled());
    }

    /** Queue depth, running jobs, oldest queued age and outcomes, named as the server's {@code /metrics}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    @ConditionalOnProperty(prefix = "retrysafe.jobs.metrics", name = "enabled", matchIfMissing = true)
    static final class Meters {

        @Bean
        @ConditionalOnMissingBean
        JobMeters retrysafeJobMeters(RetrysafeJobs jobs) {
            return new JobMeters(jobs.jobs());
        }
    }
}

package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.delivery.DeliveryRetention;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code retrysafe.webhooks.*} settings that are not about one direction's wiring: how long the
 * webhook delivery log is kept (the Retrysafe server's {@code webhooks.retention}).
 */
@ConfigurationProperties("retrysafe.webhooks")
public class RetrysafeWebhooksProperties {

    /**
     * How long deliveries and their attempts are kept: every instance that runs a dispatcher
     * deletes, once a minute, attempts started and finished deliveries created longer ago (at
     * least 1h).
     */
    private Duration retention = DeliveryRetention.DEFAULT_RETENTION;

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }
}

package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.delivery.DeliveryRetention;
import dev.retrysafe.delivery.Dispatcher;
import dev.retrysafe.delivery.WebhookEndpoints;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code retrysafe.webhooks.out.*}: the outbox publisher, the dispatcher, endpoints and their routes. */
@ConfigurationProperties("retrysafe.webhooks.out")
public class RetrysafeWebhooksOutProperties {

    /** Whether webhooks out (publisher, endpoints, dispatcher) are configured at all. */
    private boolean enabled = true;

    /** The account whose endpoints receive events published without one, and that the routes manage. */
    private String account = "default";

    /** How long the old secret keeps signing after a rotation. */
    private Duration rotationGrace = WebhookEndpoints.DEFAULT_ROTATION_GRACE;

    /**
     * How long deliveries and their attempts are kept: every instance that runs a dispatcher
     * deletes, once a minute, attempts started and finished deliveries created longer ago (at
     * least 1h; the Retrysafe server's {@code webhooks.retention}).
     */
    private Duration retention = DeliveryRetention.DEFAULT_RETENTION;

    private final Dispatch dispatcher = new Dispatch();
    private final Ssrf ssrf = new Ssrf();
    private final Routes routes = new Routes();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getAccount() {
        return account;
    }

    public void setAccount(String account) {
        this.account = account;
    }

    public Duration getRotationGrace() {
        return rotationGrace;
    }

    public void setRotationGrace(Duration rotationGrace) {
        this.rotationGrace = rotationGrace;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    public Dispatch getDispatcher() {
        return dispatcher;
    }

    public Ssrf getSsrf() {
        return ssrf;
    }

    public Routes getRoutes() {
        return routes;
    }

    /** {@code retrysafe.webhooks.out.dispatcher.*}: the background sender of this instance. */
    public static class Dispatch {

        /** Whether this instance runs a dispatcher (another instance may send instead). */
        private boolean enabled = true;

        /** The name this instance's claims carry; random when unset. */
        private String instanceId = "";

        /** How long a claim lasts; must exceed the attempt timeout. */
        private Duration lease = Dispatcher.DEFAULT_LEASE;

        /** Most deliveries one claim takes. */
        private int batchSize = Dispatcher.DEFAULT_BATCH_SIZE;

        /** Most attempts in flight in this instance. */
        private int workers = Dispatcher.DEFAULT_WORKERS;

        /** The wait between claims when nothing is due. */
        private Duration pollInterval = Dispatcher.DEFAULT_POLL_INTERVAL;

        /** Most attempts in flight to one endpoint. */
        private int maxInFlightPerEndpoint = Dispatcher.DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT;

        /** How long an endpoint may fail every attempt before it is disabled. */
        private Duration disableAfter = Dispatcher.DEFAULT_DISABLE_AFTER;

        /** How long shutdown lets attempts in flight finish. */
        private Duration shutdownTimeout = Dispatcher.DEFAULT_SHUTDOWN_TIMEOUT;

        /** The timeout of one attempt (connection, request and answer). */
        private Duration attemptTimeout = Duration.ofSeconds(5);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getInstanceId() {
            return instanceId;
        }

        public void setInstanceId(String instanceId) {
            this.instanceId = instanceId;
        }

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public int getWorkers() {
            return workers;
        }

        public void setWorkers(int workers) {
            this.workers = workers;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public int getMaxInFlightPerEndpoint() {
            return maxInFlightPerEndpoint;
        }

        public void setMaxInFlightPerEndpoint(int maxInFlightPerEndpoint) {
            this.maxInFlightPerEndpoint = maxInFlightPerEndpoint;
        }

        public Duration getDisableAfter() {
            return disableAfter;
        }

        public void setDisableAfter(Duration disableAfter) {
            this.disableAfter = disableAfter;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public Duration getAttemptTimeout() {
            return attemptTimeout;
        }

        public void setAttemptTimeout(Duration attemptTimeout) {
            this.attemptTimeout = attemptTimeout;
        }
    }

    /** {@code retrysafe.webhooks.out.ssrf.*}: the SSRF guard, on for every endpoint URL and attempt. */
    public static class Ssrf {

        /**
         * Otherwise refused address blocks to allow, e.g. {@code 127.0.0.0/8} and {@code ::1/128} for a
         * receiver on the same machine in tests. Never list anything in production that an attacker
         * could point a URL at.
         */
        private List<String> allowPrivateTargets = new ArrayList<>();

        /** Whether plain http URLs are refused. */
        private boolean requireHttps = true;

        public List<String> getAllowPrivateTargets() {
            return allowPrivateTargets;
        }

        public void setAllowPrivateTargets(List<String> allowPrivateTargets) {
            this.allowPrivateTargets = allowPrivateTargets;
        }

        public boolean isRequireHttps() {
            return requireHttps;
        }

        public void setRequireHttps(boolean requireHttps) {
            this.requireHttps = requireHttps;
        }
    }

    /** {@code retrysafe.webhooks.out.routes.*}: REST routes for the endpoints, off by default. */
    public static class Routes {

        /** Whether the routes are served (Spring MVC needed). */
        private boolean enabled = false;

        /** Where the routes are served. */
        private String path = "/v1/webhook_endpoints";

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }
    }
}

package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.jobs.Jobs;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code retrysafe.jobs.*}: the job scheduler and this instance's workers. */
@ConfigurationProperties("retrysafe.jobs")
public class RetrysafeJobsProperties {

    /** Whether the job scheduler is configured at all. */
    private boolean enabled = true;

    /** Whether this instance runs jobs (false: it only enqueues and reads them). */
    private boolean workersEnabled = true;

    /** The name this instance's claims carry; random when unset. */
    private String instanceId = "";

    /** How long a claim lasts without a heartbeat. */
    private Duration lease = Jobs.DEFAULT_LEASE;

    /** Claims of a job before losing its worker once more fails it. */
    private int maxAttempts = Jobs.DEFAULT_MAX_ATTEMPTS;

    /** How long a result can be downloaded after its job finished. */
    private Duration resultRetention = Jobs.DEFAULT_RESULT_RETENTION;

    /** How long a finished job's record is kept. */
    private Duration recordRetention = Jobs.DEFAULT_RECORD_RETENTION;

    /** Most jobs this instance runs at once. */
    private int workers = Jobs.DEFAULT_WORKERS;

    /** The wait between claims when nothing wakes the loop. */
    private Duration pollInterval = Jobs.DEFAULT_POLL_INTERVAL;

    /** How long shutdown lets running jobs finish. */
    private Duration shutdownTimeout = Jobs.DEFAULT_SHUTDOWN_TIMEOUT;

    /** The wait between two purges of expired results and records. */
    private Duration purgeInterval = Jobs.DEFAULT_PURGE_INTERVAL;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isWorkersEnabled() {
        return workersEnabled;
    }

    public void setWorkersEnabled(boolean workersEnabled) {
        this.workersEnabled = workersEnabled;
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

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public Duration getResultRetention() {
        return resultRetention;
    }

    public void setResultRetention(Duration resultRetention) {
        this.resultRetention = resultRetention;
    }

    public Duration getRecordRetention() {
        return recordRetention;
    }

    public void setRecordRetention(Duration recordRetention) {
        this.recordRetention = recordRetention;
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

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public Duration getPurgeInterval() {
        return purgeInterval;
    }

    public void setPurgeInterval(Duration purgeInterval) {
        this.purgeInterval = purgeInterval;
    }
}

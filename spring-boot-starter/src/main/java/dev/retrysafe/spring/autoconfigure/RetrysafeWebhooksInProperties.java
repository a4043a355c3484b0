package dev.retrysafe.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code retrysafe.webhooks.in.*}: receiving Standard Webhooks for {@code @WebhookListener} methods. */
@ConfigurationProperties("retrysafe.webhooks.in")
public class RetrysafeWebhooksInProperties {

    /** Whether the receiver is configured (it also needs at least one secret). */
    private boolean enabled = true;

    /** The path senders post to; a Servlet URL pattern. */
    private String path = "/webhooks";

    /**
     * The signing secrets ({@code whsec_...}); a delivery signed by any of them is accepted (two
     * during a sender's rotation). Secrets are never logged.
     */
    private List<String> secrets = new ArrayList<>();

    /** How far a delivery's timestamp may be from now. */
    private Duration tolerance = Duration.ofMinutes(5);

    /** Largest body read; a longer one answers 413. */
    private int maxBodyBytes = 1024 * 1024;

    /**
     * Where the ids of received deliveries are remembered: {@code jdbc} (the {@code received_webhooks}
     * table on the application's DataSource, shared by every instance; the default when there is a
     * DataSource) or {@code memory} (this instance only).
     */
    private String dedupe = "";

    /** How long a received id is remembered. */
    private Duration dedupeTtl = Duration.ofHours(48);

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

    public List<String> getSecrets() {
        return secrets;
    }

    public void setSecrets(List<String> secrets) {
        this.secrets = secrets;
    }

    public Duration getTolerance() {
        return tolerance;
    }

    public void setTolerance(Duration tolerance) {
        this.tolerance = tolerance;
    }

    public int getMaxBodyBytes() {
        return maxBodyBytes;
    }

    public void setMaxBodyBytes(int maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    public String getDedupe() {
        return dedupe;
    }

    public void setDedupe(String dedupe) {
        this.dedupe = dedupe;
    }

    public Duration getDedupeTtl() {
        return dedupeTtl;
    }

    public void setDedupeTtl(Duration dedupeTtl) {
        this.dedupeTtl = dedupeTtl;
    }
}

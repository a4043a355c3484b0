package dev.retrysafe.spring.autoconfigure;

import dev.retrysafe.idempotency.ClaimMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Idempotency keys on @Idempotent controller methods (retrysafe.idempotency.*). */
@ConfigurationProperties("retrysafe.idempotency")
public class RetrysafeIdempotencyProperties {

    /** Whether @Idempotent methods honour the Idempotency-Key header. */
    private boolean enabled = true;

    /** How long a key and its stored answer are kept; a retry within it gets the stored answer back. */
    private Duration keyTtl = Duration.ofHours(24);

    /** How long a claim on a key is held before another request with the key may take it over. */
    private Duration lease = Duration.ofSeconds(30);

    /**
     * How a key is held while its request runs: rows (a committed claim row with a lease;
     * any database, any number of instances; needs a second pooled connection while the request
     * runs), postgres-advisory-locks (PostgreSQL only: locks of the request's own transaction) or
     * in-process (one instance only). Unset: postgres-advisory-locks on PostgreSQL, in-process on
     * an embedded H2 database, rows on any other.
     */
    private @Nullable ClaimMode claims;

    /** Largest request body fingerprinted; a longer one answers 413. */
    private int maxBodyBytes = 1048576;

    /** Response headers stored with an answer and replayed with it (besides status and body). */
    private List<String> storedHeaders = new ArrayList<>(List.of("Content-Type", "Location"));

    /** Prefix of the type URI of the problems Retrysafe answers (400, 409, 413, 422). */
    private String problemTypeBase = "/problems/";

    /** How often keys older than key-ttl are deleted; 0 never deletes them (they still stop replaying). */
    private Duration purgeInterval = Duration.ofHours(1);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getKeyTtl() {
        return keyTtl;
    }

    public void setKeyTtl(Duration keyTtl) {
        this.keyTtl = keyTtl;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public @Nullable ClaimMode getClaims() {
        return claims;
    }

    public void setClaims(@Nullable ClaimMode claims) {
        this.claims = claims;
    }

    public int getMaxBodyBytes() {
        return maxBodyBytes;
    }

    public void setMaxBodyBytes(int maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    public List<String> getStoredHeaders() {
        return storedHeaders;
    }

    public void setStoredHeaders(List<String> storedHeaders) {
        this.storedHeaders = storedHeaders;
    }

    public String getProblemTypeBase() {
        return problemTypeBase;
    }

    public void setProblemTypeBase(String problemTypeBase) {
        this.problemTypeBase = problemTypeBase;
    }

    public Duration getPurgeInterval() {
        return purgeInterval;
    }

    public void setPurgeInterval(Duration purgeInterval) {
        this.purgeInterval = purgeInterval;
    }
}

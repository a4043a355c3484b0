package dev.retrysafe.servlet.internal;

import dev.retrysafe.idempotency.Claim;
import dev.retrysafe.idempotency.ClaimOutcome;
import dev.retrysafe.idempotency.Fingerprint;
import dev.retrysafe.idempotency.IdempotencyStore;
import dev.retrysafe.idempotency.Scope;
import dev.retrysafe.idempotency.StoredResponse;
import dev.retrysafe.servlet.DecisionListener;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/** A store that counts its claims' outcomes and otherwise does what its delegate does. Threadsafe. */
public final class CountingIdempotencyStore implements IdempotencyStore {

    private final IdempotencyStore delegate;
    private final DecisionListener outcomes;

    /** Counts the claims of {@code delegate} into {@code outcomes}. */
    public CountingIdempotencyStore(IdempotencyStore delegate, DecisionListener outcomes) {
        this.delegate = delegate;
        this.outcomes = outcomes;
    }

    @Override
    public ClaimOutcome claim(Scope scope, Fingerprint fingerprint, Instant now, Duration lease) {
        return counted(delegate.claim(scope, fingerprint, now, lease));
    }

    @Override
    public ClaimOutcome claim(
            Connection transaction, Scope scope, Fingerprint fingerprint, Instant now, Duration lease) {
        return counted(delegate.claim(transaction, scope, fingerprint, now, lease));
    }

    private ClaimOutcome counted(ClaimOutcome outcome) {
        outcomes.claimed(
                switch (outcome) {
                    case ClaimOutcome.Acquired acquired -> "acquired";
                    case ClaimOutcome.Replay replay -> "replayed";
                    case ClaimOutcome.InFlight inFlight -> "in_flight";
                    case ClaimOutcome.Mismatch mismatch -> "mismatch";
                });
        return outcome;
    }

    @Override
    public boolean claimsOnOwnConnection() {
        return delegate.claimsOnOwnConnection();
    }

    @Override
    public void finished(Claim claim, boolean committed) {
        delegate.finished(claim, committed);
    }

    @Override
    public void complete(Connection transaction, Claim claim, StoredResponse response, Instant now) {
        delegate.complete(transaction, claim, response, now);
    }

    @Override
    public void completeAndCommit(Connection transaction, Claim claim, StoredResponse response, Instant now)
            throws SQLException {
        delegate.completeAndCommit(transaction, claim, response, now);
    }

    @Override
    public boolean release(Claim claim) {
        return delegate.release(claim);
    }

    @Override
    public int purge(Instant cutoff) {
        return delegate.purge(cutoff);
    }
}

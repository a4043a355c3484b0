package dev.retrysafe.client.internal;

import dev.retrysafe.client.RetryBudget;

/** A {@link RetryBudget} that never refuses. Stateless and threadsafe. */
public final class UnlimitedBudget implements RetryBudget {

    /** The one instance. */
    public static final UnlimitedBudget INSTANCE = new UnlimitedBudget();

    private UnlimitedBudget() {}

    @Override
    public void recordCall() {}

    @Override
    public boolean tryAcquireRetry() {
        return true;
    }

    @Override
    public double available() {
        return Double.POSITIVE_INFINITY;
    }

    @Override
    public String toString() {
        return "RetryBudget[unlimited]";
    }
}

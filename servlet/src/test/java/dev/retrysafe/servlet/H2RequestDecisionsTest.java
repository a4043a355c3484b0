package dev.retrysafe.servlet;

import dev.retrysafe.testkit.ThrowawayDatabase;
import jakarta.servlet.Filter;

/**
 * The idempotency contract through {@link RequestDecisions}, the one entry point a framework
 * integration calls: it must decide exactly as the filter installed on its own.
 */
class H2RequestDecisionsTest extends IdempotencyFilterContract {

    @Override
    protected ThrowawayDatabase openDatabase() {
        return ThrowawayDatabase.h2("decisions");
    }

    @Override
    protected Filter installed(IdempotencyFilter filter) {
        return RequestDecisions.builder().idempotency(filter).build();
    }
}

package dev.retrysafe.servlet;

import jakarta.servlet.Filter;
import java.time.Duration;

/**
 * What spends budget, through {@link RequestDecisions} with all three parts (rate limit, body,
 * idempotency) passed as values instead of request attributes: every test of
 * {@link RateLimitFilterTest} must hold exactly as with the filters installed one by one.
 */
class RequestDecisionsRateLimitTest extends RateLimitFilterTest {

    @Override
    protected Filter[] filters(RateLimitFilter rateLimit, IdempotencyFilter idempotency) {
        RequestBodyFilter bodies = RequestBodyFilter.builder()
                .maxBodyBytes(1024 * 1024)
                .bodyTimeout(Duration.ofSeconds(30))
                .build();
        return new Filter[] {
            RequestDecisions.builder()
                    .rateLimits(rateLimit)
                    .bodies(bodies)
                    .idempotency(idempotency)
                    .build()
        };
    }
}

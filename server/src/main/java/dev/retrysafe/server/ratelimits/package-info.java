/**
 * The server's rate limits: who a request is (for the policies' scopes), the filter and its
 * store as configured, and {@code GET /v1/rate_limit}.
 */
@NullMarked
package dev.retrysafe.server.ratelimits;

import org.jspecify.annotations.NullMarked;

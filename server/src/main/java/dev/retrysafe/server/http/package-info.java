/**
 * The HTTP layer: the filter chain and Javalin composed in one place, authentication, RFC 9457
 * problem details for every error with a readable page per problem type, JSON bodies, and the
 * health and readiness probes.
 */
@NullMarked
package dev.retrysafe.server.http;

import org.jspecify.annotations.NullMarked;

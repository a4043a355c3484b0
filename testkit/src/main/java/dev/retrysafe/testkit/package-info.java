/**
 * Shared test fixtures for every Retrysafe module: one {@link dev.retrysafe.testkit.FakeClock}
 * and throw-away PostgreSQL databases ({@link dev.retrysafe.testkit.PostgresTestDatabase}).
 * Only ever a test-scope dependency.
 */
@NullMarked
package dev.retrysafe.testkit;

import org.jspecify.annotations.NullMarked;

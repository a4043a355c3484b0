package dev.retrysafe.acceptance;

/**
 * The databases a {@link Deployment} can run on. A top-level enum so that every parameterised test
 * names the same two values in its display name ({@code on H2}, {@code on POSTGRESQL}).
 */
enum Storage {
    H2,
    POSTGRESQL
}

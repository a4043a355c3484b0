/**
 * Flyway migrations written in Java, found by Flyway next to the SQL files of
 * {@code db/migration}: schema that another module owns and ships as code.
 */
@NullMarked
package db.migration;

import org.jspecify.annotations.NullMarked;

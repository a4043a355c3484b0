/**
 * Auto-configuration of Retrysafe in a Spring Boot application, one class per piece, each with
 * its {@code retrysafe.<piece>.*} properties and its {@code enabled} switch; every bean backs
 * off when the application defines one of its type.
 */
@NullMarked
package dev.retrysafe.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;

/**
 * Spring Boot auto-configuration of Retrysafe, one {@code @AutoConfiguration} per piece with its
 * {@code @ConfigurationProperties} under {@code retrysafe.*}; each piece has its own
 * {@code enabled} switch and backs off when the application defines the bean itself.
 */
@NullMarked
package dev.retrysafe.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;

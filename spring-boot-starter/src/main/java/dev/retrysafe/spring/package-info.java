/**
 * Retrysafe in a Spring Boot application: what an application names in its own code (annotations
 * and beans). The auto-configuration that builds them from {@code retrysafe.*} lives in {@code
 * dev.retrysafe.spring.autoconfigure}; nothing else is public API.
 */
@NullMarked
package dev.retrysafe.spring;

import org.jspecify.annotations.NullMarked;

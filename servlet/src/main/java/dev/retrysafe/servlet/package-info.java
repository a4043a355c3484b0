/**
 * Jakarta Servlet filters that bring Retrysafe to any servlet application (Jetty, Tomcat,
 * Spring Boot, Javalin): idempotency keys with the operation's transaction bound to the request.
 */
@NullMarked
package dev.retrysafe.servlet;

import org.jspecify.annotations.NullMarked;

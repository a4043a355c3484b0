/**
 * The server's configuration: immutable records that check their own values, and the loader
 * that layers the documented defaults, an optional YAML file and environment variables.
 */
@NullMarked
package dev.retrysafe.server.config;

import org.jspecify.annotations.NullMarked;

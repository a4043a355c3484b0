/**
 * The runnable Retrysafe server: the start and graceful stop of everything
 * ({@link dev.retrysafe.server.RetrysafeServer}) and the one place where the HTTP pipeline is
 * composed ({@link dev.retrysafe.server.HttpApp}). The command line that starts it is
 * {@code dev.retrysafe.server.cli}, which nothing here depends on.
 */
@NullMarked
package dev.retrysafe.server;

import org.jspecify.annotations.NullMarked;

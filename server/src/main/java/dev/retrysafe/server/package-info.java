/**
 * The runnable Retrysafe server: the command line ({@link dev.retrysafe.server.Main}), the start
 * and graceful stop of everything ({@link dev.retrysafe.server.RetrysafeServer}) and the one place
 * where the HTTP pipeline is composed ({@link dev.retrysafe.server.HttpApp}).
 */
@NullMarked
package dev.retrysafe.server;

import org.jspecify.annotations.NullMarked;

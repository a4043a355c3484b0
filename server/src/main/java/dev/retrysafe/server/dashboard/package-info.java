/**
 * The delivery dashboard at {@code /dashboard}: a static page, its style sheet and its script,
 * served from the class path under a strict Content-Security-Policy. The page holds no data of
 * its own: its script calls the public API with the key the user enters.
 */
@NullMarked
package dev.retrysafe.server.dashboard;

import org.jspecify.annotations.NullMarked;

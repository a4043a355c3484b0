/** Implementation of the in-memory store and the algorithms' arithmetic; not exported. */
@NullMarked
package dev.retrysafe.ratelimit.internal;

import org.jspecify.annotations.NullMarked;

/** Implementation of the jobs module; not exported. */
@NullMarked
package dev.retrysafe.jobs.internal;

import org.jspecify.annotations.NullMarked;

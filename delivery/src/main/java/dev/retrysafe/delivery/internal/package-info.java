/** Implementation of the delivery module; not exported. */
@NullMarked
package dev.retrysafe.delivery.internal;

import org.jspecify.annotations.NullMarked;

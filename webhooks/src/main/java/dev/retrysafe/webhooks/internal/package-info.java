/** Implementation of signing, verification and de-duplication; not exported. */
@NullMarked
package dev.retrysafe.webhooks.internal;

import org.jspecify.annotations.NullMarked;

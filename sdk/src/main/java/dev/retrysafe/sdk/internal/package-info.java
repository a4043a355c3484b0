/**
 * Implementation of the typed client: request building, the mapping of the API's answers to
 * records and of its errors to problems, and a small JSON reader and writer, so that no JSON
 * library is needed; not exported.
 */
@NullMarked
package dev.retrysafe.sdk.internal;

import org.jspecify.annotations.NullMarked;

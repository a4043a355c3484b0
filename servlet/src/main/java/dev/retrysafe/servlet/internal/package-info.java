/**
 * The hidden machinery of the servlet filters: route templates, the bounded body reader, the
 * request and response wrappers that replay the body and buffer the answer, and the problem
 * writer. Not exported; use {@code dev.retrysafe.servlet} instead.
 */
@NullMarked
package dev.retrysafe.servlet.internal;

import org.jspecify.annotations.NullMarked;

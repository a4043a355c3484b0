/**
 * The server's description of itself: the OpenAPI 3.1 document ({@code GET /openapi.json}), read
 * from {@code openapi/openapi.yaml} on the class path, and {@code GET /docs}, a self-contained
 * page (our own HTML, CSS and script, nothing loaded from elsewhere) that renders it for people.
 */
@NullMarked
package dev.retrysafe.server.docs;

import org.jspecify.annotations.NullMarked;

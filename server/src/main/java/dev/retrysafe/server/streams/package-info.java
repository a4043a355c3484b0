/**
 * The server's live event stream, {@code GET /v1/events/stream}: the live-events module
 * ({@code dev.retrysafe.liveevents}) wired to the server's accounts, events, problems and
 * configuration. The protocol is in {@code docs/live-events.md}.
 */
@NullMarked
package dev.retrysafe.server.streams;

import org.jspecify.annotations.NullMarked;

/**
 * The live event stream, {@code GET /v1/events/stream}: a WebSocket per client carrying the
 * account's events in stream order (resumable by event id), delivery attempts and job changes;
 * the limits on what a client may send and on what may wait for it; and the signals that make
 * every instance stream what any instance committed. The protocol is in {@code docs/live-events.md}.
 */
@NullMarked
package dev.retrysafe.server.streams;

import org.jspecify.annotations.NullMarked;

/**
 * Live events over WebSocket: a stream per client carrying its account's events in order
 * (resumable after an event id) and the application's updates, with limits on what a client may
 * send and on what may wait for it, and signals that make every instance on one PostgreSQL
 * database stream what any instance committed ({@code LISTEN}/{@code NOTIFY}, with the count of
 * each account's streams shared). {@link dev.retrysafe.liveevents.LiveEvents} starts it; the
 * application says who its callers are ({@link dev.retrysafe.liveevents.Callers}) and where its
 * events come from ({@link dev.retrysafe.liveevents.EventSource}). The protocol the Retrysafe
 * server speaks with it is in {@code docs/live-events.md}.
 */
@NullMarked
package dev.retrysafe.liveevents;

import org.jspecify.annotations.NullMarked;

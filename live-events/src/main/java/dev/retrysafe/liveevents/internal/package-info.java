/**
 * The live streams' machinery, not an API: the WebSocket connections and their bounded send
 * buffers, the feed that reads each account's events in stream order (resumable by event id),
 * the limits on what a client may send, and the buses that make every instance stream what any
 * instance committed. Not exported by the module.
 */
@NullMarked
package dev.retrysafe.liveevents.internal;

import org.jspecify.annotations.NullMarked;

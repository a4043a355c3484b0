package dev.retrysafe.liveevents.internal;

import dev.retrysafe.liveevents.MetricsWriter;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * This instance's stream counters, and their section of {@code GET /metrics}. The buffer gauges
 * are per connection: the fullest buffer now, and the highest any buffer ever reached, which the
 * buffer bound caps however slow a consumer is. Threadsafe.
 */
final class StreamMetrics {

    final LongAdder opened = new LongAdder();
    final LongAdder messagesReceived = new LongAdder();
    final LongAdder messagesRateLimited = new LongAdder();
    final LongAdder framesQueued = new LongAdder();
    final LongAdder eventsReplayed = new LongAdder();
    final LongAdder overflows = new LongAdder();
    final LongAdder floods = new LongAdder();
    final LongAdder dead = new LongAdder();
    final LongAdder authFailures = new LongAdder();
    final LongAdder signalsDropped = new LongAdder();
    final LongAdder feedErrors = new LongAdder();
    private final Map<Integer, LongAdder> closes = new ConcurrentHashMap<>();
    private final AtomicInteger bufferPeak = new AtomicInteger();

    /** A connection closed with {@code code}. */
    void closed(int code) {
        closes.computeIfAbsent(code, c -> new LongAdder()).increment();
    }

    /** A buffer holds {@code messages} frames. */
    void buffered(int messages) {
        bufferPeak.accumulateAndGet(messages, Math::max);
    }

    /** The highest number of frames any connection's buffer held since the start. */
    int bufferPeak() {
        return bufferPeak.get();
    }

    /** Connections closed with {@code code} since the start. */
    long closes(int code) {
        LongAdder n = closes.get(code);
        return n == null ? 0 : n.sum();
    }

    /** Writes these counters to {@code t}, with the gauges read now. */
    void render(MetricsWriter t, IntSupplier open, IntSupplier fullestBuffer, int bufferLimit) {
        t.family("retrysafe_stream_connections", "gauge", "Open live event streams on this instance.")
                .sample("retrysafe_stream_connections", open.getAsInt())
                .family("retrysafe_stream_connections_opened_total", "counter", "Streams opened on this instance.")
                .sample("retrysafe_stream_connections_opened_total", opened.sum())
                .family("retrysafe_stream_closes_total", "counter", "Streams closed, by WebSocket close code.");
        new TreeMap<>(closes)
                .forEach((code, n) -> t.sample("retrysafe_stream_closes_total{code=\"" + code + "\"}", n.sum()));
        t.family(
                        "retrysafe_stream_buffer_messages_max",
                        "gauge",
                        "Frames waiting in the fullest send buffer of one connection now.")
                .sample("retrysafe_stream_buffer_messages_max", fullestBuffer.getAsInt())
                .family(
                        "retrysafe_stream_buffer_messages_peak",
                        "gauge",
                        "The most frames one connection's send buffer ever held (bounded by the limit).")
                .sample("retrysafe_stream_buffer_messages_peak", bufferPeak())
                .family("retrysafe_stream_buffer_messages_limit", "gauge", "The bound of one connection's send buffer.")
                .sample("retrysafe_stream_buffer_messages_limit", bufferLimit)
                .family(
                        "retrysafe_stream_buffer_overflows_total",
                        "counter",
                        "Connections closed because their consumer fell a full buffer behind.")
                .sample("retrysafe_stream_buffer_overflows_total", overflows.sum())
                .family("retrysafe_stream_frames_total", "counter", "Frames queued for clients.")
                .sample("retrysafe_stream_frames_total", framesQueued.sum())
                .family("retrysafe_stream_events_replayed_total", "counter", "Events sent by resumes.")
                .sample("retrysafe_stream_events_replayed_total", eventsReplayed.sum())
                .family(
                        "retrysafe_stream_client_messages_total",
                        "counter",
                        "Messages from clients, by what became of them.")
                .sample(
                        "retrysafe_stream_client_messages_total{result=\"accepted\"}",
                        messagesReceived.sum() - messagesRateLimited.sum())
                .sample("retrysafe_stream_client_messages_total{result=\"rate_limited\"}", messagesRateLimited.sum())
                .family("retrysafe_stream_floods_total", "counter", "Connections closed (1008) for flooding.")
                .sample("retrysafe_stream_floods_total", floods.sum())
                .family("retrysafe_stream_dead_total", "counter", "Connections closed for not answering pings.")
                .sample("retrysafe_stream_dead_total", dead.sum())
                .family(
                        "retrysafe_stream_auth_failures_total",
                        "counter",
                        "Connections refused for a missing or bad key.")
                .sample("retrysafe_stream_auth_failures_total", authFailures.sum())
                .family(
                        "retrysafe_stream_signals_dropped_total",
                        "counter",
                        "Notifications dropped because a queue was full (the poll makes up for lost wake-ups).")
                .sample("retrysafe_stream_signals_dropped_total", signalsDropped.sum())
                .family("retrysafe_stream_feed_errors_total", "counter", "Failed reads of the event feed (retried).")
                .sample("retrysafe_stream_feed_errors_total", feedErrors.sum());
    }
}

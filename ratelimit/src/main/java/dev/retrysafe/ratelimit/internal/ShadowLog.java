package dev.retrysafe.ratelimit.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Logs the would-be refusals of shadow policies at a bounded rate: at most one line per policy
 * per {@link #INTERVAL_MILLIS}, with the count since the previous line, so a shadow limit far
 * below the traffic costs a line every ten seconds, not one per request. The first would-be
 * refusal of a policy is logged at once. Keys are never logged (they may name an API key).
 * Threadsafe; a would-be refusal between two lines is one striped increment.
 */
public final class ShadowLog {

    private static final System.Logger LOG = System.getLogger("dev.retrysafe.ratelimit.shadow");

    /** The least time between two lines about one policy: ten seconds. */
    public static final long INTERVAL_MILLIS = 10_000L;

    private static final ShadowLog JVM = new ShadowLog();

    private final ConcurrentHashMap<String, Counter> byPolicy = new ConcurrentHashMap<>();

    /** An empty log; production code shares {@link #wouldHaveRefused(String)}'s. */
    public ShadowLog() {}

    /** Counts a would-be refusal by the shadow policy {@code policy}; logs when a line is due. */
    public static void wouldHaveRefused(String policy) {
        // wall time, since this module has no monotonic seam of its own; a clock stepped back
        // makes a line due at once rather than silencing the policy until it catches up
        String line = JVM.count(policy, System.currentTimeMillis());
        if (line != null) {
            LOG.log(Level.INFO, line);
        }
    }

    /**
     * Counts a would-be refusal of {@code policy} at {@code nowMillis}.
     *
     * @return the line to log now, or {@code null} when the policy's last line is too recent
     */
    public @Nullable String count(String policy, long nowMillis) {
        Counter counter = byPolicy.get(policy);
        if (counter == null) {
            counter = byPolicy.computeIfAbsent(policy, p -> new Counter(nowMillis - INTERVAL_MILLIS));
        }
        counter.since.increment();
        long last = counter.lastLine.get();
        boolean due = nowMillis - last >= INTERVAL_MILLIS || nowMillis < last;
        if (!due || !counter.lastLine.compareAndSet(last, nowMillis)) {
            return null;
        }
        return "shadow rate-limit policy '" + policy + "' would have refused " + counter.since.sumThenReset()
                + " request(s) since its last report (not enforced: they went on)";
    }

    private static final class Counter {
        final LongAdder since = new LongAdder();
        final AtomicLong lastLine;

        Counter(long lastLine) {
            this.lastLine = new AtomicLong(lastLine);
        }
    }
}

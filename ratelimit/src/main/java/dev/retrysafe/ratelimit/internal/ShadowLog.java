package dev.retrysafe.ratelimit.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

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

    private static final ConcurrentHashMap<String, ShadowLog> BY_POLICY = new ConcurrentHashMap<>();

    private final LongAdder since = new LongAdder();
    private final AtomicLong lastLine;

    private ShadowLog(long now) {
        this.lastLine = new AtomicLong(now - INTERVAL_MILLIS);
    }

    /** Counts a would-be refusal by the shadow policy {@code policy}; logs when a line is due. */
    public static void wouldHaveRefused(String policy) {
        // wall time, since this module has no monotonic seam of its own; a clock stepped back
        // makes a line due at once (now < last) rather than silencing the policy until it catches up
        long now = System.currentTimeMillis();
        ShadowLog log = BY_POLICY.get(policy);
        if (log == null) {
            log = BY_POLICY.computeIfAbsent(policy, p -> new ShadowLog(now));
        }
        log.since.increment();
        long last = log.lastLine.get();
        if ((now - last >= INTERVAL_MILLIS || now < last) && log.lastLine.compareAndSet(last, now)) {
            long count = log.since.sumThenReset();
            LOG.log(
                    Level.INFO,
                    "shadow rate-limit policy ''{0}'' would have refused {1} request(s) since its last report"
                            + " (not enforced: they went on)",
                    policy,
                    count);
        }
    }
}

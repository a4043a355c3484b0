package dev.retrysafe.server.http;

import jakarta.servlet.ServletException;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * What the request being handled on this thread wrote that background loops should hear of once
 * it commits: events (the live streams), webhook deliveries (the dispatcher), jobs (the workers).
 * The writers note it ({@link #eventsRecorded}, {@link #deliveriesChanged}, {@link #jobEnqueued}); the filter that wakes the
 * loops after the commit reads it ({@link #collect}). Without this, every successful {@code POST}
 * woke every loop, and under load each wake-up cost the database a claim round of several
 * queries per request even when there was nothing to deliver or run. A note is only a hint: the
 * loops' polls find anything a missing note leaves behind. Outside {@link #collect} (a background
 * thread appending events) a note is ignored. Confined to one thread.
 */
public final class RequestEffects {

    private static final ThreadLocal<@Nullable RequestEffects> CURRENT = new ThreadLocal<>();

    private boolean events;
    private boolean deliveries;
    private boolean jobs;

    private RequestEffects() {}

    /** The handling of a request (a filter chain's rest). */
    @FunctionalInterface
    public interface Handling {
        /** Handles the request. */
        void run() throws IOException, ServletException;
    }

    /** Runs {@code handling} collecting the notes made on this thread meanwhile, and returns them. */
    public static RequestEffects collect(Handling handling) throws IOException, ServletException {
        RequestEffects outer = CURRENT.get();
        RequestEffects effects = new RequestEffects();
        CURRENT.set(effects);
        try {
            handling.run();
            return effects;
        } finally {
            CURRENT.set(outer);
        }
    }

    /** Notes events recorded in the request's transaction, with {@code deliveries} webhook deliveries. */
    public static void eventsRecorded(int deliveries) {
        RequestEffects effects = CURRENT.get();
        if (effects != null) {
            effects.events = true;
            effects.deliveries |= deliveries > 0;
        }
    }

    /** Notes deliveries made due again in the request's transaction (a retry, a recovery, an enabled endpoint). */
    public static void deliveriesChanged() {
        RequestEffects effects = CURRENT.get();
        if (effects != null) {
            effects.deliveries = true;
        }
    }

    /** Notes a job enqueued in the request's transaction. */
    public static void jobEnqueued() {
        RequestEffects effects = CURRENT.get();
        if (effects != null) {
            effects.jobs = true;
        }
    }

    /** Whether the request recorded events. */
    public boolean events() {
        return events;
    }

    /** Whether the request made webhook deliveries. */
    public boolean deliveries() {
        return deliveries;
    }

    /** Whether the request enqueued a job. */
    public boolean jobs() {
        return jobs;
    }
}

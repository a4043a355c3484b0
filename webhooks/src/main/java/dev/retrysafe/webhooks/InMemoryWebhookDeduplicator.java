package dev.retrysafe.webhooks;

import dev.retrysafe.webhooks.internal.Ids;
import dev.retrysafe.webhooks.internal.TtlIdSet;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * A {@link WebhookDeduplicator} in this process's heap, for a receiver running as one instance
 * (instances do not see each other's ids; share a database with {@link JdbcWebhookDeduplicator}).
 *
 * <p>Bounded: it holds at most {@code maxEntries} ids (default {@value #DEFAULT_MAX_ENTRIES},
 * some 10 to 20 MB with ids of 30 characters). Ids are kept in the order they were first seen.
 * Each call first drops the ids that have outlived the time to live; when the set is still full,
 * the oldest id is evicted to make room, and a copy of that event arriving later would run again.
 * Size it above the number of events the receiver gets within the time to live.
 *
 * <p>The clock is the wall clock (default the system's); all operations take one short lock.
 * This class is threadsafe.
 */
public final class InMemoryWebhookDeduplicator implements WebhookDeduplicator {

    /** Most ids held unless configured otherwise. */
    public static final int DEFAULT_MAX_ENTRIES = 100_000;
    /** Most ids that can be configured. */
    public static final int MAX_MAX_ENTRIES = 10_000_000;

    private final TtlIdSet ids;

    private InMemoryWebhookDeduplicator(Builder builder) {
        this.ids = new TtlIdSet(builder.ttl, builder.maxEntries, builder.clock);
    }

    /** A de-duplicator with the defaults: 48 hours, 100000 ids, the system clock. */
    public static InMemoryWebhookDeduplicator create() {
        return builder().build();
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean firstTime(String webhookId) {
        return ids.add(Ids.checkLength(webhookId));
    }

    @Override
    public void forget(String webhookId) {
        ids.remove(Objects.requireNonNull(webhookId, "webhookId"));
    }

    /** How many ids are held now, expired ones not yet dropped included. */
    public int size() {
        return ids.size();
    }

    /** Builds an {@link InMemoryWebhookDeduplicator}. Not threadsafe. */
    public static final class Builder {
        private Duration ttl = DEFAULT_TTL;
        private int maxEntries = DEFAULT_MAX_ENTRIES;
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        /** How long an id is remembered (positive; default 48 hours). */
        public Builder ttl(Duration ttl) {
            this.ttl = TtlIdSet.checkTtl(ttl);
            return this;
        }

        /** Most ids held (1 to 10000000; default 100000); the oldest is evicted beyond. */
        public Builder maxEntries(int maxEntries) {
            if (maxEntries < 1 || maxEntries > MAX_MAX_ENTRIES) {
                throw new IllegalArgumentException(
                        "maxEntries must be 1 to " + MAX_MAX_ENTRIES + ", was " + maxEntries);
            }
            this.maxEntries = maxEntries;
            return this;
        }

        /** The wall clock (default: the system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The de-duplicator. */
        public InMemoryWebhookDeduplicator build() {
            return new InMemoryWebhookDeduplicator(this);
        }
    }
}

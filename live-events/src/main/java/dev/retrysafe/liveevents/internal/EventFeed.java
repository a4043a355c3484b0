package dev.retrysafe.liveevents.internal;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.liveevents.EventSource;
import dev.retrysafe.liveevents.LiveEventsConfig;
import dev.retrysafe.liveevents.PositionedEvent;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds this instance's streams from the application's {@link EventSource}. One thread takes, in order,
 * subscriptions, signals and its own poll ticks, and is the only one to touch the subscribers, so
 * a resume's replay, the switch to live and every live event of an account happen in one order:
 * no gap, no duplicate. On news of an account it numbers the account's committed events
 * ({@link EventSource#number}) and sends the ones past the position its subscribers have,
 * each rendered once. An update signal is sent after the account's events, so an event
 * comes before the update that announced it. Every {@code poll_interval} it asks the
 * database which watched accounts have news (two reads), which makes up for a lost signal.
 * Nothing here waits for a client: frames go to bounded buffers. Threadsafe.
 */
final class EventFeed implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EventFeed.class);
    /** Events read per query. */
    private static final int PAGE = 500;
    /** Events numbered per transaction. */
    private static final int NUMBER_BATCH = 1000;
    /** Commands waiting at most; beyond, signals are dropped (and the poll makes up for them). */
    private static final int QUEUE_LIMIT = 100_000;

    /** Subscribes, or changes the filter of a subscribed stream. */
    private record Subscribe(
            Subscriber subscriber,
            TopicFilter filter,
            @Nullable String after) {}

    /** A stream closed. */
    private record Unsubscribe(Subscriber subscriber) {}

    /** Poll at once (a bus lost its connection and may have missed signals). */
    private record PollNow() {}

    private final LiveEventsConfig config;
    private final EventSource events;
    private final StreamMetrics metrics;
    private final Predicate<String> watched;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>(QUEUE_LIMIT);
    private final Thread thread;
    private volatile boolean running = true;

    // confined to the thread
    private final Map<String, AccountFeed> accounts = new HashMap<>();
    private final Set<String> dirty = new LinkedHashSet<>();
    private final Set<String> failed = new HashSet<>();
    private boolean pollNow;
    private final SparseWarning warning = new SparseWarning(LOG);

    /** A feed reading {@code events}; {@code watched} says which accounts have streams here. */
    EventFeed(LiveEventsConfig config, EventSource events, StreamMetrics metrics, Predicate<String> watched) {
        this.config = config;
        this.events = events;
        this.metrics = metrics;
        this.watched = watched;
        this.thread = Thread.ofPlatform().daemon().name("retrysafe-stream-feed").unstarted(this::run);
    }

    /** Whether a {@code resume} may name {@code text}. */
    boolean isEventId(String text) {
        return events.isEventId(text);
    }

    /** Starts the thread. */
    void start() {
        thread.start();
    }

    /** Subscribes {@code subscriber} with {@code filter}: from now on, or replaying after event {@code after}. */
    void subscribe(Subscriber subscriber, TopicFilter filter, @Nullable String after) {
        enqueue(new Subscribe(subscriber, filter, after), true);
    }

    /** {@code subscriber} closed. */
    void unsubscribe(Subscriber subscriber) {
        enqueue(new Unsubscribe(subscriber), true);
    }

    /** A signal from this or another instance; dropped at once if its account has no stream here. */
    void signal(Signal signal) {
        if (watched.test(signal.accountId())) {
            enqueue(signal, false);
        }
    }

    /** Signals may have been lost: ask the database at once. */
    void pollNow() {
        enqueue(new PollNow(), false);
    }

    private void enqueue(Object command, boolean mustKeep) {
        if (queue.offer(command)) {
            return;
        }
        if (mustKeep) {
            try {
                queue.put(command); // a subscription is small and rare: wait for room rather than lose it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            metrics.signalsDropped.increment();
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        long interval = config.pollInterval().toNanos();
        long nextPoll = MonotonicClock.nanoTime() + interval;
        List<Object> batch = new ArrayList<>();
        while (running) {
            batch.clear();
            try {
                long wait = dirty.isEmpty() ? Math.max(0, nextPoll - MonotonicClock.nanoTime()) : 0;
                Object first = queue.poll(wait, TimeUnit.NANOSECONDS);
                if (first != null) {
                    batch.add(first);
                    queue.drainTo(batch, 999);
                }
            } catch (InterruptedException e) {
                return;
            }
            for (Object command : batch) {
                try {
                    handle(command);
                } catch (RuntimeException e) {
                    failure(null, e); // one bad command must not stop every stream of the instance
                }
            }
            if (pollNow || MonotonicClock.nanoTime() - nextPoll >= 0) {
                poll();
                pollNow = false;
                nextPoll = MonotonicClock.nanoTime() + interval;
            }
            for (String account : List.copyOf(dirty)) {
                catchUp(account);
            }
        }
    }

    private void handle(Object command) {
        switch (command) {
            case Signal.Wake w -> {
                if (accounts.containsKey(w.accountId())) {
                    dirty.add(w.accountId());
                }
            }
            case Signal.Update u -> {
                AccountFeed feed = accounts.get(u.accountId());
                if (feed != null) {
                    catchUp(u.accountId()); // the events committed before the change come first
                    feed.publish(u.topic(), u.frame());
                }
            }
            case Subscribe s -> subscribe(s);
            case Unsubscribe u -> {
                String account = u.subscriber().accountId();
                AccountFeed feed = accounts.get(account);
                if (feed != null && feed.unsubscribe(u.subscriber())) {
                    accounts.remove(account);
                    dirty.remove(account);
                    failed.remove(account);
                }
            }
            case PollNow p -> pollNow = true;
            default -> throw new IllegalStateException("unknown command " + command);
        }
    }

    private void subscribe(Subscribe s) {
        Subscriber subscriber = s.subscriber();
        String account = subscriber.accountId();
        AccountFeed feed = accounts.get(account);
        if (feed != null && feed.has(subscriber)) {
            feed.subscribe(subscriber, s.filter());
            subscriber.send(Frame.of(ServerMessages.subscribed(s.filter())));
            return;
        }
        boolean created = feed == null;
        try {
            if (created) {
                feed = new AccountFeed(number(account).last());
                accounts.put(account, feed);
            } else {
                catchUp(account);
            }
            @Nullable Frame refusal = s.after() == null ? null : replay(subscriber, feed, s.after(), s.filter());
            if (refusal != null) {
                refuse(subscriber, refusal);
            } else {
                if (s.after() == null) {
                    subscriber.send(Frame.of(ServerMessages.subscribed(s.filter())));
                }
                feed.subscribe(subscriber, s.filter());
            }
        } catch (SQLException | RuntimeException e) {
            failure(account, e);
            refuse(
                    subscriber,
                    Frame.of(ServerMessages.error(
                            "unavailable", "The stream cannot read events right now; subscribe again in a moment.")));
        }
        if (created && feed != null && feed.isEmpty()) {
            accounts.remove(account);
        }
    }

    /** A subscription that did not happen: the client may ask again as soon as it reads why. */
    private static void refuse(Subscriber subscriber, Frame error) {
        subscriber.subscribeFailed();
        subscriber.send(error);
    }

    /** Sends the events after {@code after}, then {@code resumed}; or answers the error why not, sending nothing. */
    private @Nullable Frame replay(Subscriber subscriber, AccountFeed feed, String after, TopicFilter filter)
            throws SQLException {
        String account = subscriber.accountId();
        OptionalLong from = events.positionOf(account, after);
        if (from.isEmpty()) {
            return Frame.of(ServerMessages.error(
                    "unknown_event",
                    "No event '" + after
                            + "' in this account: resume after an event id the stream or GET /v1/events gave you."));
        }
        long missed = feed.position - from.getAsLong();
        if (missed > config.maxReplay()) {
            return Frame.of(ServerMessages.error(
                    "resume_too_far",
                    missed + " events followed '" + after
                            + "', more than one resume replays (" + config.maxReplay()
                            + "): read them with GET /v1/events,"
                            + " then subscribe."));
        }
        int replayed = 0;
        long position = from.getAsLong();
        while (position < feed.position) {
            List<PositionedEvent> page = read(account, position, (int) Math.min(PAGE, feed.position - position));
            if (page.isEmpty()) {
                break;
            }
            for (PositionedEvent e : page) {
                if (e.seq() > feed.position) {
                    break;
                }
                if (filter.matches(e.type())) {
                    subscriber.send(Frame.of(ServerMessages.event(e.envelope())));
                    replayed++;
                }
                position = e.seq();
            }
        }
        metrics.eventsReplayed.add(replayed);
        subscriber.send(Frame.of(ServerMessages.resumed(after, replayed, filter)));
        return null;
    }

    /** Sends the account's events past its feed's position to its subscribers. */
    private void catchUp(String account) {
        dirty.remove(account);
        AccountFeed feed = accounts.get(account);
        if (feed == null) {
            return;
        }
        try {
            EventSource.Numbered numbered = number(account);
            while (feed.position < numbered.last()) {
                List<PositionedEvent> page = read(account, feed.position, PAGE);
                if (page.isEmpty()) {
                    break;
                }
                for (PositionedEvent e : page) {
                    feed.publish(e.type(), Frame.of(ServerMessages.event(e.envelope())));
                    feed.position = e.seq();
                }
            }
            if (numbered.numbered() == NUMBER_BATCH) {
                dirty.add(account); // more were waiting for a number
            }
        } catch (SQLException | RuntimeException e) {
            failure(account, e);
        }
    }

    private EventSource.Numbered number(String account) throws SQLException {
        try {
            return events.number(account, NUMBER_BATCH);
        } catch (SQLException e) {
            // another instance numbered the account at the same moment (made its row): done now
            return events.number(account, NUMBER_BATCH);
        }
    }

    private List<PositionedEvent> read(String account, long after, int limit) throws SQLException {
        return events.after(account, after, limit);
    }

    private void poll() {
        dirty.addAll(failed);
        failed.clear();
        if (accounts.isEmpty()) {
            return;
        }
        Map<String, Long> positions = new HashMap<>();
        accounts.forEach((account, feed) -> positions.put(account, feed.position));
        try {
            dirty.addAll(events.withNews(positions));
        } catch (SQLException | RuntimeException e) {
            failure(null, e);
            failed.addAll(positions.keySet());
        }
    }

    private void failure(@Nullable String account, Exception e) {
        metrics.feedErrors.increment();
        if (account != null) {
            failed.add(account);
        }
        warning.warn("live streams cannot read events (retried at the next poll): {}", e.toString());
    }
}

package dev.retrysafe.liveevents.internal;

/** One stream as the {@link EventFeed} sees it. Implementations are threadsafe. */
interface Subscriber {

    /** The authenticated account whose news it gets. */
    String accountId();

    /** Queues {@code frame} for the client without waiting; a full buffer closes the stream. */
    void send(Frame frame);

    /** Its subscribe or resume failed (an error was sent): it may ask again. */
    void subscribeFailed();
}

package dev.retrysafe.liveevents.internal;

/**
 * Carries {@link Signal}s to the streams of this instance at once and to those of every other
 * instance. {@link #publish} never blocks and never throws: a signal that cannot be carried is
 * dropped and counted, and the streams' poll finds the events it announced. Threadsafe.
 */
interface Bus extends AutoCloseable {

    /** Sends {@code signal} here and everywhere else. */
    void publish(Signal signal);

    /** Stops carrying; later signals are dropped. */
    @Override
    void close();
}

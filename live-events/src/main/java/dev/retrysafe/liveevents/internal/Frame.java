package dev.retrysafe.liveevents.internal;

/**
 * A text message to send, with its UTF-8 length worked out once: an event goes to every
 * subscriber as the same frame.
 *
 * @param text  the JSON text
 * @param bytes its length in UTF-8
 */
record Frame(String text, int bytes) {

    /** The frame of {@code text}. */
    static Frame of(String text) {
        return new Frame(text, ServerMessages.bytes(text));
    }
}

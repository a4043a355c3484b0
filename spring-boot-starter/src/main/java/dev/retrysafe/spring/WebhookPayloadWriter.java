package dev.retrysafe.spring;

/**
 * Turns the payload objects given to {@link WebhookPublisher} into JSON. The starter's default
 * uses the application's Jackson {@code JsonMapper}; an application bean of this type replaces it.
 * Implementations must be threadsafe.
 */
public interface WebhookPayloadWriter {

    /**
     * The JSON text of {@code payload}.
     *
     * @throws IllegalArgumentException if it cannot be written as JSON
     */
    String json(Object payload);

    /**
     * Checks that {@code json}, given already serialised, is one JSON value (default: accepts any text).
     *
     * @throws IllegalArgumentException if it is not
     */
    default void checkJson(String json) {}
}

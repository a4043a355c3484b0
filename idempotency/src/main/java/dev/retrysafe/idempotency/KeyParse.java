package dev.retrysafe.idempotency;

/**
 * What {@link IdempotencyKey#parse(String)} made of an {@code Idempotency-Key} header value:
 * a {@link Valid} key or an {@link Invalid} one with the reason. A malformed key is the client's
 * everyday mistake, not a broken contract, so it is a value the caller renders as a {@code 400}
 * rather than an exception. Instances are immutable and threadsafe.
 */
public sealed interface KeyParse {

    /** The header held a usable key. */
    record Valid(IdempotencyKey key) implements KeyParse {}

    /**
     * The header did not hold a usable key.
     *
     * @param reason why, in words fit for a problem's {@code detail} (never echoes the raw value)
     */
    record Invalid(String reason) implements KeyParse {}
}

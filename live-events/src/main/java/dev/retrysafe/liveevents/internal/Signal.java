package dev.retrysafe.liveevents.internal;

/** What travels between the instances' streams: an account's news. Immutable. */
sealed interface Signal {

    /** The account concerned. */
    String accountId();

    /** The account committed events. */
    record Wake(String accountId) implements Signal {}

    /** A change of the account's, as the frame subscribers of {@code topic} get; implies {@link Wake}. */
    record Update(String accountId, String topic, Frame frame) implements Signal {}
}

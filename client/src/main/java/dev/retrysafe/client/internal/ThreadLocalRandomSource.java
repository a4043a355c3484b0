package dev.retrysafe.client.internal;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/** {@link ThreadLocalRandom} of the calling thread, as one shareable generator. Threadsafe. */
public final class ThreadLocalRandomSource implements RandomGenerator {

    /** The one instance. */
    public static final ThreadLocalRandomSource INSTANCE = new ThreadLocalRandomSource();

    private ThreadLocalRandomSource() {}

    @Override
    public long nextLong() {
        return ThreadLocalRandom.current().nextLong();
    }

    @Override
    public long nextLong(long bound) {
        return ThreadLocalRandom.current().nextLong(bound);
    }

    @Override
    public double nextDouble() {
        return ThreadLocalRandom.current().nextDouble();
    }
}

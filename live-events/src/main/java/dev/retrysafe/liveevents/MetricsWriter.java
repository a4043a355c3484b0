package dev.retrysafe.liveevents;

/**
 * Where the streams write their figures: metric families in the Prometheus text format, one
 * {@link #family} then its samples. The application's {@code /metrics} page implements it.
 */
public interface MetricsWriter {

    /** Starts family {@code name} of {@code type} ({@code counter} or {@code gauge}). */
    MetricsWriter family(String name, String type, String help);

    /** One sample: {@code series} is the name with its labels. */
    MetricsWriter sample(String series, long value);
}

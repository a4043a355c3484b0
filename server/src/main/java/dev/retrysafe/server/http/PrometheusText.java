package dev.retrysafe.server.http;

import dev.retrysafe.liveevents.MetricsWriter;

/**
 * Writes metric families in the Prometheus text exposition format (0.0.4): a {@code HELP} and a
 * {@code TYPE} line per family, then one line per sample. Not threadsafe: one per rendering.
 */
public final class PrometheusText implements MetricsWriter {

    /** The content type of {@code GET /metrics}. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final StringBuilder out = new StringBuilder(2048);

    /** Starts family {@code name} of {@code type} ({@code counter}, {@code gauge}, {@code histogram}). */
    @Override
    public PrometheusText family(String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        return this;
    }

    /** One sample: {@code series} is the name with its labels. */
    @Override
    public PrometheusText sample(String series, long value) {
        out.append(series).append(' ').append(value).append('\n');
        return this;
    }

    /** One sample of a decimal value, such as seconds with millisecond precision. */
    public PrometheusText sample(String series, java.math.BigDecimal value) {
        out.append(series)
                .append(' ')
                .append(value.stripTrailingZeros().toPlainString())
                .append('\n');
        return this;
    }

    /** Seconds with millisecond precision. */
    public static java.math.BigDecimal seconds(java.time.Duration d) {
        return java.math.BigDecimal.valueOf(d.toMillis(), 3);
    }

    @Override
    public String toString() {
        return out.toString();
    }
}

package dev.retrysafe.server.streams;

import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;

/** Reads one sample of the server's {@code GET /metrics}, as an operator's scraper would. */
final class StreamMetricsReader {

    private StreamMetricsReader() {}

    /** The value of {@code series} (name with labels), 0 if the server does not show it. */
    static long metric(TestServer server, String series) {
        Api.Answer answer = new Api(server.baseUri(), null).get("/metrics");
        if (answer.status() != 200) {
            throw new AssertionError("GET /metrics answered " + answer.status());
        }
        return answer.raw()
                .body()
                .lines()
                .filter(line -> line.startsWith(series + " "))
                .map(line -> Long.parseLong(line.substring(series.length() + 1).trim()))
                .findFirst()
                .orElse(0L);
    }
}

package dev.retrysafe.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The readers {@link RetryPolicy} exposes for integrations on another HTTP stack read as the client does. */
class RetryPolicyReadersTest {

    private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");

    @Test
    void retryAfterReadsSecondsDatesAndTheLongestValue() {
        assertThat(RetryPolicy.retryAfter(List.of("120"), NOW)).isEqualTo(Duration.ofSeconds(120));
        assertThat(RetryPolicy.retryAfter(List.of("Mon, 07 Dec 2026 12:00:30 GMT"), NOW))
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(RetryPolicy.retryAfter(List.of("5", "soon", "9"), NOW)).isEqualTo(Duration.ofSeconds(9));
        assertThat(RetryPolicy.retryAfter(List.of("soon"), NOW)).isNull();
        assertThat(RetryPolicy.retryAfter(List.of(), NOW)).isNull();
    }

    @Test
    void transientFailuresAreTheClientsOwn() {
        assertThat(RetryPolicy.transientFailure(new ConnectException("refused")))
                .isEqualTo(FailureKind.CONNECT);
        assertThat(RetryPolicy.transientFailure(new HttpTimeoutException("slow")))
                .isEqualTo(FailureKind.TIMEOUT);
        assertThat(RetryPolicy.transientFailure(new IOException("reset"))).isEqualTo(FailureKind.RESET);
        assertThat(RetryPolicy.transientFailure(new UnknownHostException("nope")))
                .isNull();
    }
}

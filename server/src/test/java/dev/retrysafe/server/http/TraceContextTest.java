package dev.retrysafe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.delivery.OutboxEvent;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The request's trace context: kept when valid, started when missing or invalid, gone after the request. */
class TraceContextTest {

    private static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aNewTraceIsAValidVersion00TraceparentNotSampledWithRandomIds() {
        Set<String> traces = new HashSet<>();
        IntStream.range(0, 1000).forEach(i -> {
            String t = TraceContext.start();
            assertThat(t).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
            assertThat(OutboxEvent.isTraceparent(t)).isTrue();
            traces.add(t.substring(3, 35));
        });
        assertThat(traces).hasSize(1000);
    }

    @Test
    void aValidIncomingTraceparentIsKeptAsItCameForTheWholeRequestAndClearedAfterIt() throws Exception {
        List<@Nullable String> seen = new ArrayList<>();
        new TraceContext().doFilter(request(VALID), null, chain(seen));

        assertThat(seen).containsExactly(VALID, VALID);
        assertThat(TraceContext.current()).as("outside a request").isNull();
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"})
    void aMissingOrInvalidOneStartsANewTraceTheSameForTheWholeRequest(@Nullable String header) throws Exception {
        List<@Nullable String> seen = new ArrayList<>();
        new TraceContext().doFilter(request(header), null, chain(seen));

        assertThat(seen).hasSize(2).doesNotContainNull();
        assertThat(seen.get(0)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00").isEqualTo(seen.get(1));
    }

    /** A chain that reads the current trace twice, as two events of one request would. */
    private static FilterChain chain(List<@Nullable String> seen) {
        return (req, res) -> {
            seen.add(TraceContext.current());
            seen.add(TraceContext.current());
        };
    }

    private static ServletRequest request(@Nullable String traceparent) {
        HttpServletRequest base = (HttpServletRequest) Proxy.newProxyInstance(
                TraceContextTest.class.getClassLoader(), new Class<?>[] {HttpServletRequest.class}, (p, m, a) -> null);
        return new HttpServletRequestWrapper(base) {
            @Override
            public @Nullable String getHeader(String name) {
                return name.equalsIgnoreCase("traceparent") ? traceparent : null;
            }
        };
    }
}

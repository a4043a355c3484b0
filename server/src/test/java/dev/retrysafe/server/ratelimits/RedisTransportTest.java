package dev.retrysafe.server.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.resource.EpollProvider;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The server ships Netty's native epoll transport so that Lettuce talks to Redis over epoll on
 * Linux x86_64 (fewer system calls and thread wake-ups per rate-limit decision than NIO; see
 * bench/ratelimit/HISTORY.md). Lettuce uses it only if Netty can load it and Lettuce's own check finds it,
 * so this checks both, on the test class path (the same dependencies the shaded jar is built
 * from): a missing dependency or a Netty version that does not match the native library would
 * make the server fall back to NIO without a word.
 */
class RedisTransportTest {

    @Test
    @EnabledOnOs(
            value = OS.LINUX,
            architectures = {"amd64", "x86_64"})
    void nettyCanLoadItsNativeEpollTransport() {
        Throwable why = Epoll.unavailabilityCause();
        assertThat(Epoll.isAvailable())
                .as("epoll unavailable: %s", why == null ? "no cause given" : why.toString())
                .isTrue();
        assertThat(EpollProvider.isAvailable())
                .as("Lettuce does not see the epoll transport")
                .isTrue();
    }
}

package dev.retrysafe.ratelimit.redis.internal.transport;

import java.time.Duration;

/** {@link RespConnectionTest}'s replies read by blocking reads alone, without polling the socket first. */
class RespConnectionWithoutPollingTest extends RespConnectionTest {

    @Override
    SpinWait spin() {
        return new SpinWait(Duration.ZERO, 2);
    }
}

package dev.retrysafe.ratelimit.redis;

/** {@link RedisOutageTest}'s outages with every decision going through Lettuce. */
class RedisOutageWithoutDirectConnectionTest extends RedisOutageTest {

    @Override
    protected boolean directConnection() {
        return false;
    }
}

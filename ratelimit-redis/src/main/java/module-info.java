/** Rate-limit counters shared by every instance, in Redis: one atomic Lua script per decision. */
module dev.retrysafe.ratelimit.redis {
    requires static transitive org.jspecify;
    requires transitive dev.retrysafe.ratelimit;
    requires dev.retrysafe.common;
    requires transitive lettuce.core;

    exports dev.retrysafe.ratelimit.redis;
}

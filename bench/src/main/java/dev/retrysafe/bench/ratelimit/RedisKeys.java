package dev.retrysafe.bench.ratelimit;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;

/** Cleans up after a Redis benchmark. */
final class RedisKeys {

    private RedisKeys() {}

    /** Deletes every key that starts with {@code prefix} (which holds no glob characters); returns how many. */
    static long deleteByPrefix(RedisCommands<String, String> redis, String prefix) {
        if (prefix.isEmpty() || prefix.matches(".*[*?\\[\\]\\\\].*")) {
            throw new IllegalArgumentException(
                    "refusing to delete by a prefix that is empty or has glob characters: " + prefix);
        }
        long deleted = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs match = ScanArgs.Builder.matches(prefix + "*").limit(1000);
        do {
            KeyScanCursor<String> page = redis.scan(cursor, match);
            if (!page.getKeys().isEmpty()) {
                deleted += redis.unlink(page.getKeys().toArray(String[]::new));
            }
            cursor = page;
        } while (!cursor.isFinished());
        return deleted;
    }
}

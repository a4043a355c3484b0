package dev.retrysafe.ratelimit.redis.internal;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;

/**
 * Where a charge's counter lives: {@code <prefix>{<partition>}:<policy>:<algorithm>:<key>}, with
 * {@code :<window index>} appended by the script for the windowed algorithms. The partition is
 * the Redis Cluster hash tag, so every key of one request is in one slot and one script may
 * touch them all. The algorithm is part of the key because each keeps a different kind of state:
 * a policy whose algorithm is reconfigured starts afresh instead of misreading the old state.
 *
 * @param prefix put before every key, so that one Redis can serve several applications
 */
public record KeyLayout(String prefix) {

    public KeyLayout {
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            // a brace in the prefix would become the hash tag instead of the partition
            throw new IllegalArgumentException("key prefix must not contain '{' or '}': " + prefix);
        }
    }

    /** The key of {@code charge}'s state (the base of its window keys for windowed algorithms). */
    public String baseKey(String partition, Charge charge) {
        return prefix + '{' + hashTag(partition) + "}:" + charge.policy().name() + ':'
                + algorithmTag(charge.policy().algorithm()) + ':' + charge.key();
    }

    /**
     * The partition made safe as a hash tag: Redis hashes the text between the first '{' and the
     * next '}', so braces in it are escaped, and '%' too so that no two partitions collide. An
     * empty tag would make Redis hash the whole key, so the empty partition gets a tag of its
     * own that no escaped text can equal.
     */
    static String hashTag(String partition) {
        if (partition.isEmpty()) {
            return "%";
        }
        if (partition.indexOf('%') < 0 && partition.indexOf('{') < 0 && partition.indexOf('}') < 0) {
            return partition; // nothing to escape: the usual case, without a copy
        }
        StringBuilder tag = new StringBuilder(partition.length() + 8);
        for (int i = 0; i < partition.length(); i++) {
            char c = partition.charAt(i);
            switch (c) {
                case '%' -> tag.append("%25");
                case '{' -> tag.append("%7B");
                case '}' -> tag.append("%7D");
                default -> tag.append(c);
            }
        }
        return tag.toString();
    }

    private static String algorithmTag(Algorithm algorithm) {
        return switch (algorithm) {
            case GCRA -> "gcra";
            case TOKEN_BUCKET -> "tb";
            case FIXED_WINDOW -> "fw";
            case SLIDING_WINDOW -> "sw";
        };
    }
}

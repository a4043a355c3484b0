package dev.retrysafe.ratelimit.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.ratelimit.Algorithm;
import dev.retrysafe.ratelimit.Charge;
import dev.retrysafe.ratelimit.Policy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeyLayoutTest {

    private final KeyLayout layout = new KeyLayout("rl:");

    @Test
    void putsThePartitionInTheHashTag() {
        Policy policy = Policy.builder("burst")
                .algorithm(Algorithm.SLIDING_WINDOW)
                .limit(5, Duration.ofSeconds(1))
                .build();
        assertThat(layout.baseKey("a:acct_1", new Charge(policy, "key_9", 1)))
                .isEqualTo("rl:{a:acct_1}:burst:sw:key_9");
    }

    @Test
    void escapesBracesSoTheTagCannotBeBroken() {
        assertThat(KeyLayout.hashTag("ip:{x}")).isEqualTo("ip:%7Bx%7D");
        assertThat(KeyLayout.hashTag("100%")).isEqualTo("100%25");
        assertThat(KeyLayout.hashTag("")).isEqualTo("%");
    }

    @ParameterizedTest
    @ValueSource(longs = {1L, 2L, 3L})
    void differentPartitionsNeverShareATag(long seed) {
        Random random = new Random(seed);
        Map<String, String> partitionByTag = new HashMap<>();
        String alphabet = "%{}a7B";
        for (int i = 0; i < 20_000; i++) {
            StringBuilder partition = new StringBuilder();
            int length = random.nextInt(6);
            for (int j = 0; j < length; j++) {
                partition.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String tag = KeyLayout.hashTag(partition.toString());
            String earlier = partitionByTag.putIfAbsent(tag, partition.toString());
            assertThat(earlier).as("seed %d: tag %s", seed, tag).isIn(null, partition.toString());
            assertThat(tag).as("seed %d", seed).doesNotContain("{", "}").isNotEmpty();
        }
    }

    @Test
    void refusesAPrefixWithBraces() {
        assertThatThrownBy(() -> new KeyLayout("app{1}:"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("app{1}:");
    }
}

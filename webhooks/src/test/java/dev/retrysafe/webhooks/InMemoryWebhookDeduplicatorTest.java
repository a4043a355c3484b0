package dev.retrysafe.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class InMemoryWebhookDeduplicatorTest extends WebhookDeduplicatorContract {

    @Override
    protected WebhookDeduplicator deduplicator() {
        return InMemoryWebhookDeduplicator.builder().ttl(TTL).clock(clock).build();
    }

    @Test
    void whenFullTheOldestIdIsEvicted() {
        InMemoryWebhookDeduplicator dedup =
                InMemoryWebhookDeduplicator.builder().maxEntries(3).clock(clock).build();
        for (String id : new String[] {"a", "b", "c"}) {
            dedup.firstTime(id);
            clock.advance(Duration.ofSeconds(1));
        }

        assertThat(dedup.firstTime("d")).isTrue();

        assertThat(dedup.size()).isEqualTo(3);
        assertThat(dedup.firstTime("b")).as("still held").isFalse();
        assertThat(dedup.firstTime("a")).as("evicted, so it runs again").isTrue();
    }

    @Test
    void expiredIdsAreDroppedBeforeAnyLiveOneIsEvicted() {
        InMemoryWebhookDeduplicator dedup = InMemoryWebhookDeduplicator.builder()
                .maxEntries(3)
                .ttl(Duration.ofMinutes(10))
                .clock(clock)
                .build();
        dedup.firstTime("old-1");
        dedup.firstTime("old-2");
        clock.advance(Duration.ofMinutes(6));
        dedup.firstTime("live");
        clock.advance(Duration.ofMinutes(5));

        assertThat(dedup.firstTime("new")).isTrue();

        assertThat(dedup.size()).as("both old ids expired and were dropped").isEqualTo(2);
        assertThat(dedup.firstTime("live")).isFalse();
    }

    @Test
    void clockSteppingBackDoesNotResurrectOrLoseIds() {
        InMemoryWebhookDeduplicator dedup = InMemoryWebhookDeduplicator.builder()
                .ttl(Duration.ofMinutes(10))
                .clock(clock)
                .build();
        dedup.firstTime("a");
        clock.set(clock.instant().minus(Duration.ofHours(1)));

        assertThat(dedup.firstTime("a")).isFalse();
        assertThat(dedup.firstTime("b")).isTrue();
    }

    @Test
    void settingsAreChecked() {
        assertThatThrownBy(() -> InMemoryWebhookDeduplicator.builder().maxEntries(0))
                .hasMessageContaining("maxEntries");
        assertThatThrownBy(() -> InMemoryWebhookDeduplicator.builder().ttl(Duration.ZERO))
                .hasMessageContaining("ttl");
        assertThat(InMemoryWebhookDeduplicator.create().firstTime("x")).isTrue();
    }
}

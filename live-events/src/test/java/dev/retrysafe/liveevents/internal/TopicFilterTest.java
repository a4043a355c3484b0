package dev.retrysafe.liveevents.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopicFilterTest {

    @Test
    void exactTypesPrefixesAndStarMatch() {
        TopicFilter filter = TopicFilter.of(List.of("payment.succeeded", "report.*"));

        assertThat(filter).isNotNull();
        assertThat(filter.matches("payment.succeeded")).isTrue();
        assertThat(filter.matches("payment.failed")).isFalse();
        assertThat(filter.matches("report.succeeded")).isTrue();
        assertThat(filter.matches("reports.x")).as("a prefix ends at a dot").isFalse();
        assertThat(filter.matches("job.updated")).isFalse();
        assertThat(TopicFilter.ALL.matches("delivery.attempted")).isTrue();
    }

    @Test
    void refusesEmptyOverlongAndMalformedLists() {
        assertThat(TopicFilter.of(List.of())).isNull();
        assertThat(TopicFilter.of(Collections.nCopies(TopicFilter.MAX_PATTERNS + 1, "a")))
                .isNull();
        assertThat(TopicFilter.of(List.of("Payment.Succeeded"))).isNull();
        assertThat(TopicFilter.of(List.of("payment.*.x"))).isNull();
        assertThat(TopicFilter.of(List.of("*.succeeded"))).isNull();
        assertThat(TopicFilter.of(List.of(""))).isNull();
        assertThat(TopicFilter.of(List.of("a".repeat(41)))).isNull();
        assertThat(TopicFilter.of(List.of("a".repeat(40) + ".b.c.d.e.f")))
                .as("six words")
                .isNull();
        assertThat(TopicFilter.of(List.of("a".repeat(40) + "." + "b".repeat(22))))
                .as("63 characters")
                .isNull();
        assertThat(TopicFilter.of(List.of("a".repeat(40) + "." + "b".repeat(19) + ".*")))
                .as("62 characters")
                .isNotNull();
        assertThat(TopicFilter.of(Collections.nCopies(TopicFilter.MAX_PATTERNS, "a")))
                .isNotNull();
    }
}

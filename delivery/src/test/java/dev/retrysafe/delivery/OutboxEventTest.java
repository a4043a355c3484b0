package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxEventTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private static OutboxEvent event() {
        return new OutboxEvent("evt_1", "acct_1", "payment.created", Instant.EPOCH, "{}".getBytes(UTF_8));
    }

    @Test
    void anEventHasNoOrderingKeyOrTraceContextUnlessGivenOne() {
        OutboxEvent plain = event();
        assertThat(plain.orderingKey()).isNull();
        assertThat(plain.traceparent()).isNull();

        OutboxEvent keyed = plain.withOrderingKey("pay_1").withTraceparent(TRACEPARENT);
        assertThat(keyed.orderingKey()).isEqualTo("pay_1");
        assertThat(keyed.traceparent()).isEqualTo(TRACEPARENT);
        assertThat(keyed).isNotEqualTo(plain);
        assertThat(keyed.withOrderingKey(null).withTraceparent(null)).isEqualTo(plain);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                TRACEPARENT,
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
                // a later version may carry more fields after a dash
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes-later",
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            })
    void aW3cTraceparentIsTaken(String traceparent) {
        assertThat(event().withTraceparent(traceparent).traceparent()).isEqualTo(traceparent);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "not-a-traceparent",
                // upper case hex
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
                // all-zero trace id, all-zero parent id
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                // the forbidden version
                "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                // version 00 with anything after it
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more",
                // a later version followed by something other than a dash
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
                // short trace id
                "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-011"
            })
    void anythingElseIsRefusedNamingTheParameter(String traceparent) {
        assertThatThrownBy(() -> event().withTraceparent(traceparent))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("traceparent must be a W3C traceparent");
    }

    @Test
    void anOrderingKeyIsOneTo255CharactersAndNotBlank() {
        assertThat(event().withOrderingKey("k".repeat(255)).orderingKey()).hasSize(255);
        assertThatThrownBy(() -> event().withOrderingKey("k".repeat(256)))
                .hasMessageContaining("orderingKey must be 1 to 255 characters");
        assertThatThrownBy(() -> event().withOrderingKey(" ")).hasMessageContaining("orderingKey");
    }

    @Test
    void toStringNamesTheFieldsButNotThePayload() {
        assertThat(event().withOrderingKey("pay_1").toString())
                .contains("orderingKey=pay_1")
                .doesNotContain("{}");
    }
}

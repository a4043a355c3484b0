package dev.retrysafe.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The names delivery's enums are stored and shown under, both ways. */
class WireNamesTest {

    @Test
    void everyStatusAndReasonReadsBackFromItsStoredName() {
        assertThat(DeliveryStatus.PENDING.wireName()).isEqualTo("pending");
        assertThat(DisabledReason.GONE.wireName()).isEqualTo("gone");
        for (DeliveryStatus status : DeliveryStatus.values()) {
            assertThat(DeliveryStatus.fromWireName(status.wireName())).isSameAs(status);
        }
        for (DisabledReason reason : DisabledReason.values()) {
            assertThat(DisabledReason.fromWireName(reason.wireName())).isSameAs(reason);
        }
    }

    @Test
    void anUnknownOrDifferentlyCasedNameIsRefusedNamingWhatItIsNot() {
        assertThatThrownBy(() -> DeliveryStatus.fromWireName("PENDING"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown delivery status: PENDING");
        assertThatThrownBy(() -> DisabledReason.fromWireName("paused"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown disabled reason: paused");
    }
}

package dev.retrysafe.liveevents.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NotifyPayloadTest {

    @Test
    void signalsTravelInOrderWithTheirMessagesAndTheSender() {
        List<Signal> sent = List.of(
                new Signal.Wake("acct_1"),
                new Signal.Update("acct_1", "job.updated", Frame.of("{\"type\":\"job.updated\",\"x\":\"é\\\"\"}")),
                new Signal.Wake("acct_2"));

        List<String> payloads = NotifyPayload.encode("instance-a", sent, () -> {});

        assertThat(payloads).hasSize(1);
        NotifyPayload.Decoded decoded = NotifyPayload.decode(payloads.getFirst());
        assertThat(decoded.from()).isEqualTo("instance-a");
        assertThat(decoded.signals()).isEqualTo(sent);
    }

    @Test
    void aPayloadStaysUnderPostgresLimitAndWakesOfOneAccountAreSentOncePerPayload() {
        List<Signal> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            sent.add(new Signal.Wake("acct_1"));
            sent.add(new Signal.Update(
                    "acct_" + i, "delivery.attempted", Frame.of("{\"pad\":\"" + "x".repeat(300) + "\"}")));
        }

        List<String> payloads = NotifyPayload.encode("i", sent, () -> {});

        assertThat(payloads.size()).isGreaterThan(1);
        List<Signal> received = new ArrayList<>();
        for (String p : payloads) {
            assertThat(p.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(NotifyPayload.MAX_BYTES);
            List<Signal> signals = NotifyPayload.decode(p).signals();
            assertThat(signals.stream().filter(s -> s instanceof Signal.Wake).count())
                    .isLessThanOrEqualTo(1);
            received.addAll(signals);
        }
        assertThat(received.stream().filter(s -> s instanceof Signal.Update).toList())
                .isEqualTo(sent.stream().filter(s -> s instanceof Signal.Update).toList());
    }

    @Test
    void anUpdateTooLargeForOnePayloadTravelsAsAWake() {
        AtomicInteger tooLarge = new AtomicInteger();

        List<String> payloads = NotifyPayload.encode(
                "i",
                List.of(new Signal.Update("acct_1", "job.updated", Frame.of("\"" + "x".repeat(5000) + "\""))),
                tooLarge::incrementAndGet);

        assertThat(tooLarge.get()).isEqualTo(1);
        assertThat(NotifyPayload.decode(payloads.getFirst()).signals()).containsExactly(new Signal.Wake("acct_1"));
    }

    @Test
    void somethingElseOnTheChannelIsIgnored() {
        assertThat(NotifyPayload.decode("hello").signals()).isEmpty();
        assertThat(NotifyPayload.decode("{\"s\":[]}").from()).isEmpty();
        assertThat(NotifyPayload.decode("{\"from\":\"x\",\"s\":[{\"a\":1},{\"a\":\"acct_1\"}]}")
                        .signals())
                .containsExactly(new Signal.Wake("acct_1"));
    }
}

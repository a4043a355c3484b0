package dev.retrysafe.liveevents.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class OutgoingTest {

    /** A socket that completes writes only when the test says so. */
    private static final class HeldWire implements Outgoing.Wire {
        final List<String> written = new ArrayList<>();
        final List<Runnable> pending = new ArrayList<>();
        final List<Consumer<Throwable>> failures = new ArrayList<>();

        @Override
        public void write(String text, Runnable done, Consumer<Throwable> failed) {
            written.add(text);
            pending.add(done);
            failures.add(failed);
        }

        void completeOne() {
            pending.removeFirst().run();
            failures.removeFirst();
        }
    }

    private static Frame frame(String text) {
        return Frame.of(text);
    }

    @Test
    void writesOneFrameAtATimeInOrder() {
        HeldWire wire = new HeldWire();
        Outgoing out = new Outgoing(wire, 10, 1000, n -> {});

        out.offer(frame("a"));
        out.offer(frame("b"));
        out.offer(frame("c"));

        assertThat(wire.written).containsExactly("a");
        assertThat(out.messages()).isEqualTo(3);
        wire.completeOne();
        assertThat(wire.written).containsExactly("a", "b");
        wire.completeOne();
        wire.completeOne();
        assertThat(wire.written).containsExactly("a", "b", "c");
        assertThat(out.messages()).isZero();
    }

    @Test
    void aWriteThatCompletesAtOnceDoesNotRecurse() {
        List<String> written = new ArrayList<>();
        Outgoing out = new Outgoing(
                (text, done, failed) -> {
                    written.add(text);
                    done.run();
                },
                5,
                1000,
                n -> {});

        for (int i = 0; i < 10_000; i++) {
            assertThat(out.offer(frame("m" + i))).isTrue();
        }

        assertThat(written).hasSize(10_000).startsWith("m0", "m1").endsWith("m9999");
        assertThat(out.messages()).isZero();
    }

    @Test
    void aFrameOverTheMessageBoundIsRefusedAndTheBufferDropped() {
        HeldWire wire = new HeldWire();
        AtomicInteger peak = new AtomicInteger();
        Outgoing out = new Outgoing(wire, 3, 1000, n -> peak.accumulateAndGet(n, Math::max));

        assertThat(out.offer(frame("a"))).isTrue();
        assertThat(out.offer(frame("b"))).isTrue();
        assertThat(out.offer(frame("c"))).isTrue();
        assertThat(out.offer(frame("d"))).as("a consumer three behind").isFalse();

        assertThat(peak.get()).isEqualTo(3);
        assertThat(out.messages()).as("only the frame being written is left").isEqualTo(1);
        assertThat(out.offer(frame("e")))
                .as("taken and dropped after the overflow")
                .isTrue();
        wire.completeOne();
        assertThat(wire.written).containsExactly("a");
        assertThat(out.messages()).isZero();
    }

    @Test
    void theByteBoundCountsUtf8Bytes() {
        HeldWire wire = new HeldWire();
        Outgoing out = new Outgoing(wire, 100, 10, n -> {});

        assertThat(out.offer(frame("ééé"))).as("6 bytes").isTrue();
        assertThat(out.offer(frame("éé"))).as("4 more: 10").isTrue();
        assertThat(out.offer(frame("x"))).as("11").isFalse();
    }

    @Test
    void aFailedWriteDropsTheBuffer() {
        HeldWire wire = new HeldWire();
        Outgoing out = new Outgoing(wire, 10, 1000, n -> {});
        out.offer(frame("a"));
        out.offer(frame("b"));

        wire.failures.getFirst().accept(new java.io.IOException("reset"));

        assertThat(out.messages()).isZero();
        assertThat(wire.written).containsExactly("a");
    }
}

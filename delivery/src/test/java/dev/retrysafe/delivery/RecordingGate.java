package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.ConnectGate;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The fake connector: records every address the sender was about to dial. In {@link #refusing()}
 * mode it dials nothing at all, so a broken guard fails a test instead of reaching a real address;
 * in {@link #loopbackOnly()} mode it lets loopback through and refuses the rest. Threadsafe.
 */
final class RecordingGate implements ConnectGate {

    private final boolean dialLoopback;
    private final List<InetSocketAddress> seen = new CopyOnWriteArrayList<>();

    private RecordingGate(boolean dialLoopback) {
        this.dialLoopback = dialLoopback;
    }

    static RecordingGate refusing() {
        return new RecordingGate(false);
    }

    static RecordingGate loopbackOnly() {
        return new RecordingGate(true);
    }

    @Override
    public List<InetSocketAddress> admit(List<InetSocketAddress> addresses) throws ConnectException {
        seen.addAll(addresses);
        boolean allLoopback = addresses.stream().allMatch(a -> a.getAddress().isLoopbackAddress());
        if (!dialLoopback || !allLoopback) {
            throw new ConnectException("fake connector: not dialling " + addresses);
        }
        return addresses;
    }

    /** Every address the sender tried to dial, in order. */
    List<InetSocketAddress> seen() {
        return List.copyOf(seen);
    }
}

package dev.retrysafe.delivery.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;

/**
 * Jetty's {@link SocketAddressResolver} for the webhook client: it never asks DNS. Jetty calls it
 * for every new connection with the destination in the context; the destination's tag is the
 * {@link CheckedTarget} of the attempt that created it, and only those addresses are returned
 * (through the {@link ConnectGate}). A destination without such a tag fails with
 * {@link UncheckedTargetException}. Threadsafe.
 */
public final class CheckedAddressResolver implements SocketAddressResolver {

    private final ConnectGate gate;

    /** A resolver that passes the checked addresses through {@code gate} before they are dialled. */
    public CheckedAddressResolver(ConnectGate gate) {
        this.gate = Objects.requireNonNull(gate, "gate");
    }

    @Override
    public void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
        Object destination = context.get(Destination.CONTEXT_KEY);
        Object tag = destination instanceof Destination d ? d.getOrigin().getTag() : null;
        if (!(tag instanceof CheckedTarget target) || target.port() != port) {
            promise.failed(new UncheckedTargetException("no checked addresses for this connection"));
            return;
        }
        List<InetSocketAddress> addresses = new ArrayList<>(target.addresses().size());
        for (InetAddress address : target.addresses()) {
            // the (InetAddress, int) constructor keeps the address as is: no lookup, forward or reverse
            addresses.add(new InetSocketAddress(address, port));
        }
        List<InetSocketAddress> admitted;
        try {
            admitted = List.copyOf(gate.admit(addresses));
        } catch (IOException e) {
            promise.failed(e);
            return;
        } catch (RuntimeException e) {
            promise.failed(new IOException("connect gate failed", e));
            return;
        }
        promise.succeeded(admitted);
    }
}

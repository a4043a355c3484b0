package dev.retrysafe.delivery.internal;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * The tag of a Jetty request: the host, port and the addresses the guard checked for this
 * attempt. Jetty keeps one destination (and connection pool) per tag, so a connection opened for
 * one set of checked addresses is never reused for another, and {@link CheckedAddressResolver}
 * finds the addresses to dial here instead of asking DNS. Value equality on purpose: attempts
 * with the same answer share their pool. Immutable.
 */
public record CheckedTarget(String host, int port, List<InetAddress> addresses) {

    public CheckedTarget {
        Objects.requireNonNull(host, "host");
        addresses = List.copyOf(addresses);
    }
}

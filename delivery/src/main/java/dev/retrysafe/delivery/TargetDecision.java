package dev.retrysafe.delivery;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * What {@link TargetGuard#check} decided about a webhook URL: {@link Allowed} with the addresses
 * that were checked (connect to these and nothing else), or {@link Refused} with a reason. Hostile
 * input is an expected outcome, so it is a value here, never an exception.
 */
public sealed interface TargetDecision {

    /** Whether the URL may be called. */
    default boolean allowed() {
        return this instanceof Allowed;
    }

    /**
     * The URL may be called, at these addresses only.
     *
     * @param host      the host as the guard understood it: lower case ASCII, no trailing dot,
     *                  percent-decoding undone; an IPv4 literal in dotted-quad form whatever
     *                  spelling the URL used; an IPv6 literal in brackets. Send it as {@code Host}
     *                  and as the TLS server name.
     * @param port      the port, the scheme's default when the URL has none
     * @param addresses every address the host stood for when it was checked (at least one), in
     *                  the resolver's order; all of them passed the guard
     */
    record Allowed(String host, int port, List<InetAddress> addresses) implements TargetDecision {
        public Allowed {
            Objects.requireNonNull(host, "host");
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException("port must be 1 to 65535: " + port);
            }
            addresses = List.copyOf(addresses);
            if (addresses.isEmpty()) {
                throw new IllegalArgumentException("addresses must not be empty");
            }
        }
    }

    /**
     * The URL must not be called.
     *
     * @param reason  the rule that refused it
     * @param message for the person who registered the URL; it never names the addresses a
     *                host name resolved to, so the guard cannot be used to map internal DNS
     */
    record Refused(Reason reason, String message) implements TargetDecision {
        public Refused {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }
    }

    /** Why a URL was refused. */
    enum Reason {
        /** The text is not a URL at all. */
        MALFORMED_URL,
        /** Neither {@code http} nor {@code https}. */
        UNSUPPORTED_SCHEME,
        /** {@code http} while the guard requires {@code https}. */
        HTTPS_REQUIRED,
        /** The URL carries user information ({@code user:pass@host}), a classic way to disguise the host. */
        USERINFO,
        /** The URL has no host. */
        MISSING_HOST,
        /** The host is not a valid name or address (bad characters, a zone id, a number that is no IPv4 address). */
        INVALID_HOST,
        /** The port is not 1 to 65535. */
        INVALID_PORT,
        /** The host is, or resolves to, an address that is not public and not on the allowlist. */
        NOT_PUBLIC,
        /** The host name did not resolve to any address. */
        UNRESOLVABLE
    }
}

package dev.retrysafe.delivery;

import dev.retrysafe.delivery.internal.Cidr;
import dev.retrysafe.delivery.internal.DefaultTargetGuard;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The SSRF guard: decides whether a webhook URL may be called, and at which addresses. Only
 * {@code http(s)} URLs without user information are allowed; the host is parsed here (every IPv4
 * spelling a resolver accepts, IPv6 literals, percent-encoding, trailing dots), a name is resolved
 * with the {@link Resolver}, and the URL is refused if <em>any</em> address is not public: every
 * IANA special-purpose block of IPv4 and IPv6, multicast, IPv6 outside global unicast, and IPv6
 * forms that embed such an IPv4 address (mapped, NAT64, 6to4). {@code docs/webhooks.md} lists
 * the rules and their reasons.
 *
 * <p>Check at registration and again at every attempt, and connect only to the addresses of the
 * {@link TargetDecision.Allowed} answer: a second lookup would let DNS rebinding through.
 * {@link HttpAttemptSender} does both.
 *
 * <p>Implementations are immutable and threadsafe; {@link #check} blocks while the resolver does.
 *
 * <pre>{@code
 * TargetGuard guard = TargetGuard.builder().build();             // public https targets only
 * TargetGuard local = TargetGuard.builder()                       // tests and local development
 *         .allowPrivateTargets(List.of("127.0.0.0/8", "::1/128"))
 *         .requireHttps(false)
 *         .build();
 * }</pre>
 */
public interface TargetGuard {

    /** Decides about {@code url}; never throws for hostile input. */
    TargetDecision check(URI url);

    /** Decides about {@code url} given as text; text that is no URL is {@link TargetDecision.Reason#MALFORMED_URL}. */
    default TargetDecision check(String url) {
        Objects.requireNonNull(url, "url");
        try {
            return check(new URI(url));
        } catch (URISyntaxException e) {
            return new TargetDecision.Refused(TargetDecision.Reason.MALFORMED_URL, "not a URL: " + e.getReason());
        }
    }

    /** A builder with the defaults: no private targets, {@code https} required, the system resolver. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * Turns a host name into addresses. The default asks the system ({@link InetAddress#getAllByName});
     * tests inject answers, so that no test depends on, or reaches, real DNS.
     */
    @FunctionalInterface
    interface Resolver {
        /**
         * Every address of {@code host}, a DNS name (never an address literal: the guard parses those).
         *
         * @throws UnknownHostException when the name does not resolve
         */
        List<InetAddress> resolve(String host) throws UnknownHostException;

        /** The system resolver. */
        static Resolver system() {
            return host -> Arrays.asList(InetAddress.getAllByName(host));
        }
    }

    /** Builds a {@link TargetGuard}. Not threadsafe; the built guard is immutable. */
    final class Builder {
        private final List<Cidr> allowed = new ArrayList<>();
        private boolean requireHttps = true;
        private Resolver resolver = Resolver.system();

        private Builder() {}

        /**
         * Allows these otherwise refused blocks, e.g. {@code "127.0.0.0/8"} and {@code "::1/128"}
         * for a receiver on the same machine. Only the listed blocks are opened; an IPv4-mapped
         * IPv6 address counts as its IPv4 address. Replaces earlier calls. Empty by default;
         * never list anything in production that an attacker could point a URL at.
         *
         * @throws IllegalArgumentException naming the value when one is not {@code address/length}
         */
        public Builder allowPrivateTargets(List<String> cidrs) {
            Objects.requireNonNull(cidrs, "cidrs");
            List<Cidr> parsed = new ArrayList<>();
            for (String cidr : cidrs) {
                parsed.add(Cidr.parse(Objects.requireNonNull(cidr, "cidrs must not contain null")));
            }
            allowed.clear();
            allowed.addAll(parsed);
            return this;
        }

        /** Whether plain {@code http} URLs are refused; {@code true} by default. */
        public Builder requireHttps(boolean requireHttps) {
            this.requireHttps = requireHttps;
            return this;
        }

        /** The resolver for host names; {@link Resolver#system()} by default. */
        public Builder resolver(Resolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** A guard with this configuration (copied: later changes to the builder do not affect it). */
        public TargetGuard build() {
            return new DefaultTargetGuard(List.copyOf(allowed), requireHttps, resolver);
        }
    }
}

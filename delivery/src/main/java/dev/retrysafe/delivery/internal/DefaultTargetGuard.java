package dev.retrysafe.delivery.internal;

import static dev.retrysafe.delivery.TargetDecision.Reason.HTTPS_REQUIRED;
import static dev.retrysafe.delivery.TargetDecision.Reason.NOT_PUBLIC;
import static dev.retrysafe.delivery.TargetDecision.Reason.UNRESOLVABLE;

import dev.retrysafe.delivery.TargetDecision;
import dev.retrysafe.delivery.TargetGuard;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** The {@link TargetGuard}: parse, resolve, check every address. Immutable and threadsafe. */
public final class DefaultTargetGuard implements TargetGuard {

    /** More addresses than any sane host has; a resolver answering more is refused rather than trusted. */
    static final int MAX_ADDRESSES = 64;

    private final List<Cidr> allowed;
    private final boolean requireHttps;
    private final Resolver resolver;

    /** A guard opening {@code allowed} blocks, requiring https if asked, resolving names with {@code resolver}. */
    public DefaultTargetGuard(List<Cidr> allowed, boolean requireHttps, Resolver resolver) {
        this.allowed = List.copyOf(allowed);
        this.requireHttps = requireHttps;
        this.resolver = Objects.requireNonNull(resolver, "resolver");
    }

    @Override
    public TargetDecision check(URI url) {
        Objects.requireNonNull(url, "url");
        ParsedUrl parsed;
        try {
            parsed = UrlParser.parse(url);
        } catch (Refusal refusal) {
            return refusal.decision();
        }
        if (requireHttps && !parsed.scheme().equals("https")) {
            return new TargetDecision.Refused(HTTPS_REQUIRED, "only https URLs are allowed");
        }
        byte[] literal = parsed.literal();
        if (literal != null) {
            String why = whyRefused(literal);
            if (why != null) {
                return new TargetDecision.Refused(NOT_PUBLIC, parsed.host() + " is not a public address: " + why);
            }
            return new TargetDecision.Allowed(parsed.host(), parsed.port(), List.of(IpLiterals.toInetAddress(literal)));
        }
        return resolveAndCheck(parsed);
    }

    private TargetDecision resolveAndCheck(ParsedUrl parsed) {
        List<InetAddress> resolved;
        try {
            resolved = resolver.resolve(parsed.host());
        } catch (UnknownHostException e) {
            return new TargetDecision.Refused(UNRESOLVABLE, parsed.host() + " does not resolve");
        } catch (RuntimeException e) {
            // a broken resolver must not let a URL through, nor break the caller
            return new TargetDecision.Refused(UNRESOLVABLE, parsed.host() + " could not be resolved");
        }
        if (resolved == null || resolved.isEmpty()) {
            return new TargetDecision.Refused(UNRESOLVABLE, parsed.host() + " has no addresses");
        }
        if (resolved.size() > MAX_ADDRESSES) {
            return new TargetDecision.Refused(
                    UNRESOLVABLE, parsed.host() + " has more than " + MAX_ADDRESSES + " addresses");
        }
        List<InetAddress> checked = new ArrayList<>(resolved.size());
        for (InetAddress address : resolved) {
            if (address == null) {
                return new TargetDecision.Refused(UNRESOLVABLE, parsed.host() + " could not be resolved");
            }
            // one bad address is enough: the client may pick any of them, and an attacker's DNS
            // answers a public address next to the internal one to pass a check of the first
            String why = whyRefused(address.getAddress());
            if (why != null) {
                // the message names the block, never the address: internal DNS stays private
                return new TargetDecision.Refused(
                        NOT_PUBLIC, parsed.host() + " resolves to an address that is not public: " + why);
            }
            // a fresh instance without a host name, so nothing downstream can look the name up again
            checked.add(IpLiterals.toInetAddress(address.getAddress()));
        }
        return new TargetDecision.Allowed(parsed.host(), parsed.port(), checked);
    }

    /** Why the address is refused, or {@code null}: the allowlist first, then the registries. */
    private @Nullable String whyRefused(byte[] address) {
        byte[] canonical = SpecialAddresses.canonical(address);
        for (Cidr cidr : allowed) {
            if (cidr.contains(canonical)) {
                return null;
            }
        }
        return SpecialAddresses.whyNotPublic(address);
    }
}

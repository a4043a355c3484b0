package dev.retrysafe.delivery.internal;

import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which addresses are not public, after the IANA registries. A pure function of the address
 * bytes; stateless and threadsafe.
 *
 * <p>Sources (checked 2025; update this table when the registries change):
 * <ul>
 *   <li>IANA IPv4 Special-Purpose Address Registry,
 *       https://www.iana.org/assignments/iana-ipv4-special-registry (RFC 6890, RFC 8190)</li>
 *   <li>IANA IPv4 Multicast Address Space Registry,
 *       https://www.iana.org/assignments/multicast-addresses (RFC 5771)</li>
 *   <li>IANA IPv6 Special-Purpose Address Registry,
 *       https://www.iana.org/assignments/iana-ipv6-special-registry</li>
 *   <li>IANA Internet Protocol Version 6 Address Space,
 *       https://www.iana.org/assignments/ipv6-address-space (only 2000::/3 is global unicast)</li>
 * </ul>
 *
 * <p>Every block of the special-purpose registries is refused, also the few the registry marks
 * "globally reachable" (anycast services such as AS112, AMT, PCP, TURN): a webhook receiver is
 * never one of them, and a short, uniform rule is easier to trust than a list of exceptions.
 */
public final class SpecialAddresses {

    /** One refused block, with the name and reference the registry gives it. */
    public record Block(Cidr cidr, String name, String reference) {
        @Override
        public String toString() {
            return name + " (" + cidr + ", " + reference + ")";
        }
    }

    static final List<Block> IPV4 = List.of(
            block("0.0.0.0/8", "\"This network\"", "RFC 791"),
            block("10.0.0.0/8", "Private-Use", "RFC 1918"),
            block("100.64.0.0/10", "Shared Address Space (carrier-grade NAT)", "RFC 6598"),
            block("127.0.0.0/8", "Loopback", "RFC 1122"),
            // 169.254.169.254 is the cloud metadata service of AWS, GCP, Azure and others
            block("169.254.0.0/16", "Link Local (incl. cloud metadata)", "RFC 3927"),
            block("172.16.0.0/12", "Private-Use", "RFC 1918"),
            // holds DS-Lite (192.0.0.0/29), PCP and TURN anycast, NAT64 discovery (192.0.0.170/31)
            block("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890"),
            block("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737"),
            block("192.31.196.0/24", "AS112-v4", "RFC 7535"),
            block("192.52.193.0/24", "AMT", "RFC 7450"),
            block("192.88.99.0/24", "Deprecated 6to4 Relay Anycast", "RFC 7526"),
            block("192.168.0.0/16", "Private-Use", "RFC 1918"),
            block("192.175.48.0/24", "Direct Delegation AS112 Service", "RFC 7534"),
            block("198.18.0.0/15", "Benchmarking", "RFC 2544"),
            block("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737"),
            block("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737"),
            block("224.0.0.0/4", "Multicast", "RFC 5771"),
            block("255.255.255.255/32", "Limited Broadcast", "RFC 8190"),
            block("240.0.0.0/4", "Reserved", "RFC 1112"));

    /** Checked in order, before the "outside global unicast" rule, so that the message names the block. */
    static final List<Block> IPV6 = List.of(
            block("::/128", "Unspecified Address", "RFC 4291"),
            block("::1/128", "Loopback Address", "RFC 4291"),
            // deprecated IPv4-compatible addresses (RFC 4291 section 2.5.5.1); no stack should route them
            block("::/96", "IPv4-Compatible (deprecated)", "RFC 4291"),
            block("64:ff9b:1::/48", "Local-Use IPv4/IPv6 Translation", "RFC 8215"),
            block("100::/64", "Discard-Only Address Block", "RFC 6666"),
            // holds Teredo (2001::/32), benchmarking, AMT, AS112-v6, ORCHID, DETs, PCP/TURN anycast
            block("2001::/23", "IETF Protocol Assignments", "RFC 2928"),
            block("2001:db8::/32", "Documentation", "RFC 3849"),
            block("2620:4f:8000::/48", "Direct Delegation AS112 Service", "RFC 7534"),
            block("3fff::/20", "Documentation", "RFC 9637"),
            block("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602"),
            block("fc00::/7", "Unique-Local", "RFC 4193"),
            block("fe80::/10", "Link-Local Unicast", "RFC 4291"),
            block("fec0::/10", "Site-Local (deprecated)", "RFC 3879"),
            block("ff00::/8", "Multicast", "RFC 4291"));

    private static final Cidr MAPPED = Cidr.parse("::ffff:0:0/96");
    private static final Cidr NAT64 = Cidr.parse("64:ff9b::/96");
    private static final Cidr SIX_TO_FOUR = Cidr.parse("2002::/16");
    private static final Cidr GLOBAL_UNICAST = Cidr.parse("2000::/3");
    private static final Block OUTSIDE_GLOBAL_UNICAST =
            new Block(GLOBAL_UNICAST, "Outside IPv6 Global Unicast", "IANA IPv6 Address Space");

    private SpecialAddresses() {}

    /**
     * Why {@code address} (4 or 16 bytes) is not public, or {@code null} when it is. IPv6
     * addresses that carry an IPv4 address are judged by it: IPv4-mapped ({@code ::ffff:0:0/96}),
     * NAT64 ({@code 64:ff9b::/96}, RFC 6052) and 6to4 ({@code 2002::/16}, RFC 3056), because
     * packets to them end up at that IPv4 address.
     */
    public static @Nullable String whyNotPublic(byte[] address) {
        if (address.length == 4) {
            Block block = find(IPV4, address);
            return block == null ? null : block.toString();
        }
        if (address.length != 16) {
            throw new IllegalArgumentException("an IP address has 4 or 16 bytes, not " + address.length);
        }
        if (MAPPED.contains(address)) {
            return embedded("IPv4-mapped", Arrays.copyOfRange(address, 12, 16));
        }
        if (NAT64.contains(address)) {
            return embedded("NAT64", Arrays.copyOfRange(address, 12, 16));
        }
        if (SIX_TO_FOUR.contains(address)) {
            String why = embedded("6to4", Arrays.copyOfRange(address, 2, 6));
            if (why != null) {
                return why;
            }
        }
        Block block = find(IPV6, address);
        if (block != null) {
            return block.toString();
        }
        return GLOBAL_UNICAST.contains(address)
                ? null
                : OUTSIDE_GLOBAL_UNICAST.name() + " (not in 2000::/3, " + OUTSIDE_GLOBAL_UNICAST.reference() + ")";
    }

    /**
     * The address Java connects to for {@code address}: an IPv4-mapped IPv6 address is its IPv4
     * address, so the allowlist and the connection treat both spellings alike.
     */
    public static byte[] canonical(byte[] address) {
        return address.length == 16 && MAPPED.contains(address) ? Arrays.copyOfRange(address, 12, 16) : address;
    }

    private static @Nullable String embedded(String form, byte[] ipv4) {
        Block block = find(IPV4, ipv4);
        return block == null ? null : form + " address of " + block;
    }

    private static @Nullable Block find(List<Block> blocks, byte[] address) {
        for (Block block : blocks) {
            if (block.cidr().contains(address)) {
                return block;
            }
        }
        return null;
    }

    private static Block block(String cidr, String name, String reference) {
        return new Block(Cidr.parse(cidr), name, reference);
    }
}

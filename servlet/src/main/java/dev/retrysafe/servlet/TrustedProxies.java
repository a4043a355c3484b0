package dev.retrysafe.servlet;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which address a request came from when load balancers stand in front of the server. The
 * connection's peer is the client, unless it is one of the trusted proxies: then the
 * {@code X-Forwarded-For} list is read from its right end (the entry the nearest proxy added)
 * leftwards, skipping trusted proxies, and the first address that is not one is the client.
 * Entries further left were written by the client itself and are never believed. An entry that
 * is not an IP address ends the walk: the last trusted hop is then taken as the client.
 *
 * <p>Addresses are parsed as literals only (never looked up by name). Immutable and threadsafe.
 */
public final class TrustedProxies {

    /** The header nginx and most load balancers append the peer's address to. */
    public static final String FORWARDED_FOR = "X-Forwarded-For";

    private static final Pattern IPV4 = Pattern.compile(
            "(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}" + "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]{2,45}");
    /** At most this many entries are read from the right: a longer chain is a forgery or a loop. */
    private static final int MAX_HOPS = 16;

    private record Block(byte[] network, int prefix) {
        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            for (int bit = 0; bit < prefix; bit++) {
                int mask = 0x80 >>> (bit % 8);
                if ((address[bit / 8] & mask) != (network[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Block> blocks;

    private TrustedProxies(List<Block> blocks) {
        this.blocks = List.copyOf(blocks);
    }

    /** No trusted proxy: the peer is always the client. */
    public static TrustedProxies none() {
        return new TrustedProxies(List.of());
    }

    /**
     * Trusts the blocks {@code cidrs} ({@code 10.0.0.0/8}, {@code ::1/128}; a bare address is a
     * block of one).
     *
     * @throws IllegalArgumentException naming the first entry that is not a block
     */
    public static TrustedProxies of(List<String> cidrs) {
        List<Block> blocks = new ArrayList<>();
        for (String cidr : cidrs) {
            String text = cidr.strip();
            int slash = text.indexOf('/');
            byte[] network = address(slash < 0 ? text : text.substring(0, slash));
            if (network == null) {
                throw new IllegalArgumentException("not an IP address or CIDR block: '" + cidr + "'");
            }
            int bits = network.length * 8;
            int prefix = bits;
            if (slash >= 0) {
                String length = text.substring(slash + 1);
                if (!length.matches("\\d{1,3}") || Integer.parseInt(length) > bits) {
                    throw new IllegalArgumentException("not a prefix length of 0.." + bits + " in '" + cidr + "'");
                }
                prefix = Integer.parseInt(length);
            }
            blocks.add(new Block(network, prefix));
        }
        return new TrustedProxies(blocks);
    }

    /** Whether no proxy is trusted. */
    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    /**
     * The client's address for a connection from {@code peer} carrying the {@code X-Forwarded-For}
     * header values {@code forwardedFor} (in the order received; empty when absent).
     */
    public String client(String peer, List<String> forwardedFor) {
        if (!trusted(peer)) {
            return peer;
        }
        List<String> hops = new ArrayList<>();
        for (String value : forwardedFor) {
            for (String part : value.split(",")) {
                hops.add(part.strip());
            }
        }
        String client = peer;
        for (int i = hops.size() - 1, read = 0; i >= 0 && read < MAX_HOPS; i--, read++) {
            String hop = unbracket(hops.get(i));
            if (address(hop) == null) {
                return client;
            }
            if (!trusted(hop)) {
                return hop;
            }
            client = hop;
        }
        return client;
    }

    private boolean trusted(String address) {
        byte[] bytes = address(unbracket(address));
        if (bytes == null) {
            return false;
        }
        for (Block b : blocks) {
            if (b.contains(bytes)) {
                return true;
            }
        }
        return false;
    }

    private static String unbracket(String s) {
        return s.length() > 2 && s.charAt(0) == '[' && s.charAt(s.length() - 1) == ']'
                ? s.substring(1, s.length() - 1)
                : s;
    }

    /** The bytes of an IPv4 dotted quad or an IPv6 literal; {@code null} for anything else. */
    private static byte @Nullable [] address(String text) {
        try {
            if (IPV4.matcher(text).matches()) {
                return InetAddress.getByName(text).getAddress();
            }
            if (text.indexOf(':') >= 0 && IPV6_CHARS.matcher(text).matches()) {
                // brackets make the JDK parse a literal and never resolve a name
                byte[] bytes = InetAddress.getByName("[" + text + "]").getAddress();
                return bytes;
            }
        } catch (UnknownHostException e) {
            return null;
        }
        return null;
    }
}

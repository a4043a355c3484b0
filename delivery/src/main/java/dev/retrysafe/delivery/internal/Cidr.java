package dev.retrysafe.delivery.internal;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A block of IPv4 or IPv6 addresses, {@code network/prefixLength}. Immutable and threadsafe.
 *
 * @param text         the block as written, normalised ({@code 127.0.0.0/8}, {@code ::1/128})
 * @param network      4 or 16 bytes with the host bits zero (copied in and out)
 * @param prefixLength 0 to 32 or 0 to 128
 */
public record Cidr(String text, byte[] network, int prefixLength) {

    public Cidr {
        Objects.requireNonNull(text, "text");
        network = network.clone();
        int bits = network.length * 8;
        if (network.length != 4 && network.length != 16) {
            throw new IllegalArgumentException("a network has 4 or 16 bytes, not " + network.length);
        }
        if (prefixLength < 0 || prefixLength > bits) {
            throw new IllegalArgumentException("prefix length must be 0 to " + bits + ": " + prefixLength);
        }
        for (int bit = prefixLength; bit < bits; bit++) {
            if (bitAt(network, bit)) {
                throw new IllegalArgumentException(text + " has bits set after its /" + prefixLength + "; did you mean "
                        + masked(network, prefixLength) + "?");
            }
        }
    }

    /**
     * Parses {@code address/length} with a strict dotted-quad or RFC 4291 address (no lookups).
     *
     * @throws IllegalArgumentException naming {@code cidr} when it is not one
     */
    public static Cidr parse(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("not address/length: \"" + cidr + "\"");
        }
        String address = cidr.substring(0, slash).toLowerCase(Locale.ROOT);
        String length = cidr.substring(slash + 1);
        byte[] bytes = address.indexOf(':') >= 0 ? IpLiterals.parseIpv6(address) : IpLiterals.parseIpv4Strict(address);
        if (bytes == null) {
            throw new IllegalArgumentException("not an IP address in \"" + cidr + "\"");
        }
        if (length.isEmpty() || length.length() > 3 || !length.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("not a prefix length in \"" + cidr + "\"");
        }
        int prefix = Integer.parseInt(length);
        String normal =
                (bytes.length == 4 ? IpLiterals.formatIpv4(bytes) : IpLiterals.formatIpv6(bytes)) + "/" + prefix;
        try {
            return new Cidr(normal, bytes, prefix);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad block \"" + cidr + "\": " + e.getMessage(), e);
        }
    }

    /** Whether {@code address} (4 or 16 bytes) is in this block; never across families. */
    public boolean contains(byte[] address) {
        if (address.length != network.length) {
            return false;
        }
        for (int bit = 0; bit < prefixLength; bit++) {
            if (bitAt(address, bit) != bitAt(network, bit)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public byte[] network() {
        return network.clone();
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof Cidr that && prefixLength == that.prefixLength && Arrays.equals(network, that.network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + prefixLength;
    }

    @Override
    public String toString() {
        return text;
    }

    private static boolean bitAt(byte[] bytes, int bit) {
        return (bytes[bit / 8] & (0x80 >>> (bit % 8))) != 0;
    }

    private static String masked(byte[] network, int prefixLength) {
        byte[] copy = network.clone();
        for (int bit = prefixLength; bit < copy.length * 8; bit++) {
            copy[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        return (copy.length == 4 ? IpLiterals.formatIpv4(copy) : IpLiterals.formatIpv6(copy)) + "/" + prefixLength;
    }
}

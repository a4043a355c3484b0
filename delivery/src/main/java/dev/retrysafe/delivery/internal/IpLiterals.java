package dev.retrysafe.delivery.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.jspecify.annotations.Nullable;

/**
 * Parses and prints IP address literals without ever touching DNS ({@link InetAddress#getByName}
 * falls back to a lookup for anything it does not recognise, which a guard must not do).
 * Stateless and threadsafe.
 */
public final class IpLiterals {

    private IpLiterals() {}

    /**
     * An IPv4 address in any spelling the classic resolvers ({@code inet_aton}) and the WHATWG URL
     * standard accept: one to four parts separated by dots, each decimal, octal (leading
     * {@code 0}) or hexadecimal ({@code 0x}); the last part fills the remaining bytes, so
     * {@code 127.1}, {@code 0x7f.1}, {@code 0177.0.0.1} and {@code 2130706433} are all
     * {@code 127.0.0.1}. Expects lower case and no trailing dot.
     *
     * @return the four bytes, or {@code null} when {@code text} is not such a number
     */
    public static byte @Nullable [] parseIpv4Lenient(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length > 4) {
            return null;
        }
        long[] values = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            long value = parseNumber(parts[i]);
            if (value < 0) {
                return null;
            }
            values[i] = value;
        }
        for (int i = 0; i < values.length - 1; i++) {
            if (values[i] > 255) {
                return null;
            }
        }
        // the last part is a number of (5 - parts) bytes: 32 bits alone, 8 bits as the fourth of four
        int lastBytes = 5 - values.length;
        if (values[values.length - 1] >= 1L << (8 * lastBytes)) {
            return null;
        }
        long address = 0;
        for (int i = 0; i < values.length - 1; i++) {
            address |= values[i] << (8 * (3 - i));
        }
        address |= values[values.length - 1];
        return toBytes((int) address);
    }

    /** One part of a lenient IPv4 address, or -1. Long enough inputs are refused before they can overflow. */
    private static long parseNumber(String part) {
        int radix = 10;
        String digits = part;
        if (part.startsWith("0x")) {
            radix = 16;
            digits = part.substring(2);
            if (digits.isEmpty()) {
                return 0; // WHATWG reads a bare "0x" as zero
            }
        } else if (part.length() > 1 && part.charAt(0) == '0') {
            radix = 8;
            digits = part.substring(1);
        }
        if (digits.isEmpty() || digits.length() > 12) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < digits.length(); i++) {
            int digit = Character.digit(digits.charAt(i), radix);
            if (digit < 0) {
                return -1;
            }
            value = value * radix + digit;
        }
        return value;
    }

    /** Whether a host label reads as a number, so the host must be an IPv4 address or nothing. */
    public static boolean looksNumeric(String label) {
        if (label.isEmpty()) {
            return false;
        }
        if (label.startsWith("0x")) {
            return label.chars().skip(2).allMatch(c -> Character.digit(c, 16) >= 0);
        }
        return label.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** Strict dotted-quad IPv4 ({@code 10.0.0.0}), as written in configuration; {@code null} otherwise. */
    public static byte @Nullable [] parseIpv4Strict(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            String part = parts[i];
            if (part.isEmpty()
                    || part.length() > 3
                    || (part.length() > 1 && part.charAt(0) == '0')
                    || !part.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return null;
            }
            int value = Integer.parseInt(part);
            if (value > 255) {
                return null;
            }
            bytes[i] = (byte) value;
        }
        return bytes;
    }

    /**
     * An IPv6 address in the text form of RFC 4291 section 2.2 (hex groups, one {@code ::}, an
     * optional dotted-quad tail), without brackets or zone id; {@code null} otherwise.
     */
    public static byte @Nullable [] parseIpv6(String text) {
        if (text.isEmpty() || text.length() > 45) {
            return null;
        }
        byte[] bytes = new byte[16];
        String head = text;
        String tail = "";
        int gap = text.indexOf("::");
        if (gap >= 0) {
            if (text.indexOf("::", gap + 1) >= 0) {
                return null;
            }
            head = text.substring(0, gap);
            tail = text.substring(gap + 2);
        }
        int[] headGroups = groups(head, gap < 0);
        if (headGroups == null) {
            return null;
        }
        int[] tailGroups = gap < 0 ? new int[0] : groups(tail, true);
        if (tailGroups == null) {
            return null;
        }
        int total = headGroups.length + tailGroups.length;
        if (gap < 0 ? total != 8 : total > 7) {
            return null;
        }
        for (int i = 0; i < headGroups.length; i++) {
            bytes[2 * i] = (byte) (headGroups[i] >> 8);
            bytes[2 * i + 1] = (byte) headGroups[i];
        }
        for (int i = 0; i < tailGroups.length; i++) {
            int at = 8 - tailGroups.length + i;
            bytes[2 * at] = (byte) (tailGroups[i] >> 8);
            bytes[2 * at + 1] = (byte) tailGroups[i];
        }
        return bytes;
    }

    /** 16-bit groups of one side of {@code ::}; a dotted quad may end the address only. */
    private static int @Nullable [] groups(String side, boolean mayEndWithIpv4) {
        if (side.isEmpty()) {
            return new int[0];
        }
        String[] parts = side.split(":", -1);
        int count = parts.length;
        byte[] ipv4 = null;
        if (mayEndWithIpv4 && parts[count - 1].indexOf('.') >= 0) {
            ipv4 = parseIpv4Strict(parts[count - 1]);
            if (ipv4 == null) {
                return null;
            }
            count--;
        }
        int[] groups = new int[count + (ipv4 == null ? 0 : 2)];
        for (int i = 0; i < count; i++) {
            String part = parts[i];
            if (part.isEmpty() || part.length() > 4) {
                return null;
            }
            int value = 0;
            for (int j = 0; j < part.length(); j++) {
                int digit = Character.digit(part.charAt(j), 16);
                if (digit < 0) {
                    return null;
                }
                value = value * 16 + digit;
            }
            groups[i] = value;
        }
        if (ipv4 != null) {
            groups[count] = ((ipv4[0] & 0xff) << 8) | (ipv4[1] & 0xff);
            groups[count + 1] = ((ipv4[2] & 0xff) << 8) | (ipv4[3] & 0xff);
        }
        return groups;
    }

    /** The four bytes of {@code address}, most significant first. */
    public static byte[] toBytes(int address) {
        return new byte[] {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
    }

    /**
     * An {@link InetAddress} of 4 or 16 bytes, without a lookup. Java returns an
     * {@code Inet4Address} for an IPv4-mapped IPv6 address; the guard checks bytes, not classes.
     */
    public static InetAddress toInetAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("an IP address has 4 or 16 bytes, not " + bytes.length, e);
        }
    }

    /** Dotted-quad text of 4 bytes. */
    public static String formatIpv4(byte[] bytes) {
        return (bytes[0] & 0xff) + "." + (bytes[1] & 0xff) + "." + (bytes[2] & 0xff) + "." + (bytes[3] & 0xff);
    }

    /** RFC 5952 text of 16 bytes: lower case, no leading zeros, the longest run of two or more zero groups as {@code ::}. */
    public static String formatIpv6(byte[] bytes) {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }
}

package dev.retrysafe.delivery.internal;

import static dev.retrysafe.delivery.TargetDecision.Reason.INVALID_HOST;
import static dev.retrysafe.delivery.TargetDecision.Reason.INVALID_PORT;
import static dev.retrysafe.delivery.TargetDecision.Reason.MISSING_HOST;
import static dev.retrysafe.delivery.TargetDecision.Reason.UNSUPPORTED_SCHEME;
import static dev.retrysafe.delivery.TargetDecision.Reason.USERINFO;

import java.io.ByteArrayOutputStream;
import java.net.IDN;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Takes a webhook URL apart from its <em>raw</em> authority. {@link URI#getHost()} is not used: it
 * is {@code null} for hosts such as {@code 0x7f.1} that resolvers nevertheless accept, and other
 * parsers (browsers, curl, the receiving proxy) must not be able to read a different host than
 * the guard did. Anything ambiguous is refused. Stateless and threadsafe.
 */
public final class UrlParser {

    private static final int MAX_NAME_LENGTH = 253;
    private static final int MAX_LABEL_LENGTH = 63;

    private UrlParser() {}

    /** Parses {@code url}, or says why it cannot be called. */
    public static ParsedUrl parse(URI url) throws Refusal {
        String scheme = url.getScheme();
        if (scheme == null) {
            throw new Refusal(UNSUPPORTED_SCHEME, "the URL has no scheme; use https://");
        }
        scheme = scheme.toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new Refusal(UNSUPPORTED_SCHEME, "only http and https URLs are allowed, not " + scheme + ":");
        }
        String authority = url.getRawAuthority();
        if (url.isOpaque() || authority == null || authority.isEmpty()) {
            throw new Refusal(MISSING_HOST, "the URL has no host");
        }
        // "https://trusted.example@10.0.0.1/" reads as trusted.example to people and as 10.0.0.1
        // to clients; no webhook needs credentials in the URL, so any '@' is refused
        if (authority.indexOf('@') >= 0 || url.getRawUserInfo() != null) {
            throw new Refusal(USERINFO, "URLs with user information (user@host) are not allowed");
        }
        String rawHost;
        String rawPort;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw new Refusal(INVALID_HOST, "unclosed [ in the host");
            }
            rawHost = authority.substring(0, close + 1);
            String rest = authority.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw new Refusal(INVALID_HOST, "unexpected text after the IPv6 address");
            }
            rawPort = rest.isEmpty() ? "" : rest.substring(1);
        } else {
            int colon = authority.lastIndexOf(':');
            rawHost = colon < 0 ? authority : authority.substring(0, colon);
            rawPort = colon < 0 ? "" : authority.substring(colon + 1);
            if (rawHost.indexOf(':') >= 0) {
                throw new Refusal(INVALID_HOST, "an IPv6 address must be in brackets");
            }
        }
        int port = port(rawPort, scheme);
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        String pathAndQuery = url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
        if (rawHost.startsWith("[")) {
            byte[] address = ipv6Literal(rawHost.substring(1, rawHost.length() - 1));
            return new ParsedUrl(scheme, "[" + IpLiterals.formatIpv6(address) + "]", port, address, pathAndQuery);
        }
        String host = hostName(rawHost);
        int lastDot = host.lastIndexOf('.');
        if (IpLiterals.looksNumeric(host.substring(lastDot + 1))) {
            // a host ending in a number is an IPv4 address to every resolver and to WHATWG
            // URLs; when it is not a valid one, different parsers would disagree, so refuse
            byte[] address = IpLiterals.parseIpv4Lenient(host);
            if (address == null) {
                throw new Refusal(INVALID_HOST, "the host looks like an IPv4 address but is not a valid one");
            }
            return new ParsedUrl(scheme, IpLiterals.formatIpv4(address), port, address, pathAndQuery);
        }
        return new ParsedUrl(scheme, host, port, null, pathAndQuery);
    }

    private static int port(String rawPort, String scheme) throws Refusal {
        if (rawPort.isEmpty()) {
            return scheme.equals("https") ? 443 : 80;
        }
        if (rawPort.length() > 5 || !rawPort.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new Refusal(INVALID_PORT, "the port must be a number from 1 to 65535");
        }
        int port = Integer.parseInt(rawPort);
        if (port < 1 || port > 65_535) {
            throw new Refusal(INVALID_PORT, "the port must be a number from 1 to 65535, not " + port);
        }
        return port;
    }

    private static byte[] ipv6Literal(String inside) throws Refusal {
        // a zone id ("fe80::1%25eth0", RFC 6874) names an interface of *our* host: never for a webhook
        if (inside.indexOf('%') >= 0) {
            throw new Refusal(INVALID_HOST, "IPv6 zone ids are not allowed");
        }
        byte[] address = IpLiterals.parseIpv6(inside.toLowerCase(Locale.ROOT));
        if (address == null) {
            throw new Refusal(INVALID_HOST, "not a valid IPv6 address in brackets");
        }
        return address;
    }

    /** The host name, percent-decoded, in lower case ASCII, one trailing dot removed, validated. */
    private static String hostName(String rawHost) throws Refusal {
        String host = percentDecode(rawHost);
        boolean ascii = host.chars().allMatch(c -> c < 0x80);
        if (!ascii) {
            try {
                host = IDN.toASCII(host, 0);
            } catch (IllegalArgumentException e) {
                throw new Refusal(INVALID_HOST, "the host is not a valid internationalised domain name");
            }
        }
        host = host.toLowerCase(Locale.ROOT);
        if (host.endsWith(".")) {
            host = host.substring(0, host.length() - 1);
        }
        if (host.isEmpty()) {
            throw new Refusal(MISSING_HOST, "the URL has no host");
        }
        if (host.length() > MAX_NAME_LENGTH) {
            throw new Refusal(INVALID_HOST, "the host name is longer than " + MAX_NAME_LENGTH + " characters");
        }
        for (String label : host.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > MAX_LABEL_LENGTH) {
                throw new Refusal(INVALID_HOST, "the host name has an empty or too long label");
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                // underscores are not valid in host names but occur in real DNS names
                boolean valid = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
                if (!valid) {
                    throw new Refusal(INVALID_HOST, "the host contains a character that is not allowed in a host name");
                }
            }
        }
        return host;
    }

    /** Undoes {@code %XX} escapes as UTF-8; malformed escapes or bytes are refused, not guessed. */
    private static String percentDecode(String raw) throws Refusal {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '%') {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
                continue;
            }
            int high = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
            int low = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
            if (high < 0 || low < 0) {
                throw new Refusal(INVALID_HOST, "malformed percent-encoding in the host");
            }
            bytes.write(high * 16 + low);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new Refusal(INVALID_HOST, "percent-encoding in the host is not UTF-8");
        }
    }
}

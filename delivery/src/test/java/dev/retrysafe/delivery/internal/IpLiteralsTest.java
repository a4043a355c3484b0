package dev.retrysafe.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Literal parsing, compared with the JDK's own parser where the JDK has one. */
class IpLiteralsTest {

    @ParameterizedTest
    @CsvSource({
        "127.0.0.1, 127.0.0.1",
        "0177.0.0.1, 127.0.0.1",
        "0x7f.0.0.1, 127.0.0.1",
        "0x7f.1, 127.0.0.1",
        "127.1, 127.0.0.1",
        "127.0.1, 127.0.0.1",
        "2130706433, 127.0.0.1",
        "0x7f000001, 127.0.0.1",
        "017700000001, 127.0.0.1",
        "0, 0.0.0.0",
        "0x, 0.0.0.0",
        "4294967295, 255.255.255.255",
        "0xff.0xffffff, 255.255.255.255",
        "10.0xffff, 10.0.255.255",
        "192.168.0x1.01, 192.168.1.1",
        "00000000000.0.0.1, 0.0.0.1"
    })
    void lenientIpv4AcceptsWhatResolversAccept(String text, String dotted) {
        assertThat(IpLiterals.parseIpv4Lenient(text)).isEqualTo(IpLiterals.parseIpv4Strict(dotted));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "256.0.0.1",
                "1.2.3.256",
                "1.2.65536",
                "1.16777216",
                "4294967296",
                "0x100000000",
                "08",
                "09.1",
                "1.2.3.4.5",
                "1..2",
                ".1",
                "1.",
                "0xg",
                "-1",
                "+1",
                "1 .2",
                "0000000000000000001"
            })
    void lenientIpv4RefusesWhatNoResolverAccepts(String text) {
        assertThat(IpLiterals.parseIpv4Lenient(text)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"01.2.3.4", "1.2.3", "256.1.1.1", "1.2.3.4 ", "0x1.2.3.4", "1.2.3.-4"})
    void strictIpv4IsDottedDecimalOnly(String text) {
        assertThat(IpLiterals.parseIpv4Strict(text)).isNull();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "::",
                "::1",
                "1::",
                "1:2:3:4:5:6:7:8",
                "1::8",
                "::ffff:127.0.0.1",
                "64:ff9b::10.0.0.1",
                "fe80::1",
                "2001:db8:0:0:1:0:0:1",
                "0:0:0:0:0:0:0:0",
                "1:2:3:4:5:6:1.2.3.4",
                "1::1.2.3.4",
                "ABCD::EF"
            })
    void ipv6MatchesTheJdk(String text) throws Exception {
        assertThat(IpLiterals.parseIpv6(text.toLowerCase(java.util.Locale.ROOT)))
                .isEqualTo(toSixteen(InetAddress.getByName("[" + text + "]").getAddress()));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                ":",
                ":::",
                "1:::2",
                "1::2::3",
                "1:2:3:4:5:6:7:8:9",
                "1:2:3:4:5:6:7",
                "12345::",
                "g::",
                "::1.2.3",
                "::1.2.3.4.5",
                "1.2.3.4::",
                "::01.2.3.4",
                "1:2:3:4:5:6:7:1.2.3.4",
                ":1::",
                "1::2:"
            })
    void malformedIpv6IsRefused(String text) {
        assertThat(IpLiterals.parseIpv6(text)).isNull();
    }

    @Test
    void ipv6FormattingRoundTripsAndFollowsRfc5952() {
        assertThat(IpLiterals.formatIpv6(IpLiterals.parseIpv6("2001:db8:0:0:1:0:0:1")))
                .isEqualTo("2001:db8::1:0:0:1");
        assertThat(IpLiterals.formatIpv6(IpLiterals.parseIpv6("0:0:0:0:0:0:0:1")))
                .isEqualTo("::1");
        assertThat(IpLiterals.formatIpv6(IpLiterals.parseIpv6("1:0:2:0:3:0:4:0")))
                .isEqualTo("1:0:2:0:3:0:4:0");
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int i = 0; i < 10_000; i++) {
            byte[] address = new byte[16];
            random.nextBytes(address);
            for (int j = 0; j < 16; j++) {
                if (random.nextInt(3) == 0) {
                    address[j] = 0; // runs of zeros exercise the :: rules
                }
            }
            assertThat(IpLiterals.parseIpv6(IpLiterals.formatIpv6(address)))
                    .as("seed " + seed)
                    .isEqualTo(address);
        }
    }

    /** The JDK returns 4 bytes for mapped addresses; the guard works on all 16. */
    private static byte[] toSixteen(byte[] bytes) {
        if (bytes.length == 16) {
            return bytes;
        }
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        System.arraycopy(bytes, 0, mapped, 12, 4);
        return mapped;
    }
}

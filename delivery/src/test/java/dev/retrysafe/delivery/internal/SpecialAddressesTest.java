package dev.retrysafe.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The address tables: every block's edges, its neighbours, and the embedded-IPv4 forms. */
class SpecialAddressesTest {

    @ParameterizedTest
    @CsvSource({
        // first and last address of every IPv4 block
        "0.0.0.0, This network",
        "0.255.255.255, This network",
        "10.0.0.0, Private-Use",
        "10.255.255.255, Private-Use",
        "100.64.0.0, Shared Address Space",
        "100.127.255.255, Shared Address Space",
        "127.0.0.0, Loopback",
        "127.255.255.255, Loopback",
        "169.254.0.0, Link Local",
        "169.254.169.254, Link Local",
        "169.254.255.255, Link Local",
        "172.16.0.0, Private-Use",
        "172.31.255.255, Private-Use",
        "192.0.0.0, IETF Protocol Assignments",
        "192.0.0.255, IETF Protocol Assignments",
        "192.0.2.0, TEST-NET-1",
        "192.0.2.255, TEST-NET-1",
        "192.31.196.0, AS112-v4",
        "192.52.193.255, AMT",
        "192.88.99.0, 6to4 Relay",
        "192.88.99.255, 6to4 Relay",
        "192.168.0.0, Private-Use",
        "192.168.255.255, Private-Use",
        "192.175.48.1, AS112 Service",
        "198.18.0.0, Benchmarking",
        "198.19.255.255, Benchmarking",
        "198.51.100.0, TEST-NET-2",
        "198.51.100.255, TEST-NET-2",
        "203.0.113.0, TEST-NET-3",
        "203.0.113.255, TEST-NET-3",
        "224.0.0.0, Multicast",
        "239.255.255.255, Multicast",
        "240.0.0.0, Reserved",
        "255.255.255.254, Reserved",
        "255.255.255.255, Limited Broadcast"
    })
    void everyIpv4SpecialBlockIsRefusedToItsEdges(String address, String name) {
        assertThat(SpecialAddresses.whyNotPublic(v4(address))).contains(name);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "1.0.0.0",
                "1.1.1.1",
                "8.8.8.8",
                "9.255.255.255",
                "11.0.0.0",
                "100.63.255.255",
                "100.128.0.0",
                "126.255.255.255",
                "128.0.0.0",
                "169.253.255.255",
                "169.255.0.0",
                "172.15.255.255",
                "172.32.0.0",
                "191.255.255.255",
                "192.0.1.0",
                "192.0.3.0",
                "192.88.98.255",
                "192.88.100.0",
                "192.167.255.255",
                "192.169.0.0",
                "198.17.255.255",
                "198.20.0.0",
                "198.51.99.255",
                "198.51.101.0",
                "203.0.112.255",
                "203.0.114.0",
                "223.255.255.255"
            })
    void neighboursOfTheBlocksArePublic(String address) {
        assertThat(SpecialAddresses.whyNotPublic(v4(address))).isNull();
    }

    @ParameterizedTest
    @CsvSource({
        "::, Unspecified",
        "::1, Loopback",
        "::2, IPv4-Compatible",
        "::127.0.0.1, IPv4-Compatible",
        "::8.8.8.8, IPv4-Compatible",
        "::ffff:127.0.0.1, IPv4-mapped address of Loopback",
        "::ffff:a9fe:a9fe, IPv4-mapped address of Link Local",
        "::ffff:0.0.0.0, IPv4-mapped",
        "64:ff9b::10.0.0.1, NAT64 address of Private-Use",
        "64:ff9b::127.0.0.1, NAT64",
        "64:ff9b:1::1, Local-Use IPv4/IPv6 Translation",
        "64:ff9b:1:ffff:ffff:ffff:ffff:ffff, Local-Use",
        "100::, Discard-Only",
        "100::ffff:ffff:ffff:ffff, Discard-Only",
        "2001::, IETF Protocol Assignments",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2, IETF Protocol Assignments",
        "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff, IETF Protocol Assignments",
        "2001:db8::, Documentation",
        "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff, Documentation",
        "2002:7f00:1::, 6to4 address of Loopback",
        "2002:a00:1::1, 6to4 address of Private-Use",
        "2002:a9fe:a9fe::, 6to4 address of Link Local",
        "2620:4f:8000::1, AS112",
        "3fff::1, Documentation",
        "3fff:fff:ffff::1, Documentation",
        "5f00::1, SRv6",
        "fc00::, Unique-Local",
        "fd00:ec2::254, Unique-Local",
        "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff, Unique-Local",
        "fe80::, Link-Local",
        "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff, Link-Local",
        "fec0::1, Site-Local",
        "ff00::, Multicast",
        "ff02::1, Multicast",
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff, Multicast",
        "::ffff:0:127.0.0.1, Outside IPv6 Global Unicast",
        "1::, Outside IPv6 Global Unicast",
        "4000::1, Outside IPv6 Global Unicast",
        "e000::1, Outside IPv6 Global Unicast"
    })
    void everyIpv6SpecialBlockAndEveryEmbeddedFormIsRefused(String address, String name) {
        assertThat(SpecialAddresses.whyNotPublic(v6(address))).contains(name);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "2001:200::1",
                "2001:4860:4860::8888",
                "2606:4700:4700::1111",
                "2a00:1450:4001::1",
                "2001:db7:ffff::1",
                "2001:db9::1",
                "2620:4f:7fff::1",
                "2620:4f:8001::1",
                "3ffe::1",
                "3fff:1000::1",
                "::ffff:8.8.8.8",
                "64:ff9b::8.8.8.8",
                "2002:808:808::1",
                "2000::1",
                "3fff:ffff::1"
            })
    void publicIpv6AndEmbeddedPublicIpv4AreAllowed(String address) {
        assertThat(SpecialAddresses.whyNotPublic(v6(address))).isNull();
    }

    @Test
    void embeddedFormsAgreeWithTheirIpv4AddressForRandomAddresses() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int i = 0; i < 100_000; i++) {
            byte[] v4 = IpLiterals.toBytes(random.nextInt());
            boolean publicV4 = SpecialAddresses.whyNotPublic(v4) == null;

            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(v4, 0, mapped, 12, 4);
            byte[] nat64 = new byte[16];
            nat64[1] = 0x64;
            nat64[2] = (byte) 0xff;
            nat64[3] = (byte) 0x9b;
            System.arraycopy(v4, 0, nat64, 12, 4);
            byte[] sixToFour = new byte[16];
            sixToFour[0] = 0x20;
            sixToFour[1] = 0x02;
            System.arraycopy(v4, 0, sixToFour, 2, 4);
            sixToFour[15] = (byte) random.nextInt();

            String seen = "seed " + seed + ", " + IpLiterals.formatIpv4(v4);
            assertThat(SpecialAddresses.whyNotPublic(mapped) == null).as(seen).isEqualTo(publicV4);
            assertThat(SpecialAddresses.whyNotPublic(nat64) == null).as(seen).isEqualTo(publicV4);
            assertThat(SpecialAddresses.whyNotPublic(sixToFour) == null)
                    .as(seen)
                    .isEqualTo(publicV4);
            assertThat(Arrays.equals(SpecialAddresses.canonical(mapped), v4))
                    .as(seen)
                    .isTrue();
        }
    }

    @Test
    void randomAddressesOutsideGlobalUnicastAreAllRefused() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int i = 0; i < 100_000; i++) {
            byte[] address = new byte[16];
            random.nextBytes(address);
            boolean globalUnicast = (address[0] & 0xe0) == 0x20;
            if (!globalUnicast) {
                byte[] copy = address.clone();
                // the two embedded forms outside 2000::/3 are judged by their IPv4 address instead
                boolean embedded = Arrays.equals(
                                Arrays.copyOf(copy, 12), new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1})
                        || Arrays.equals(
                                Arrays.copyOf(copy, 12), new byte[] {0, 0x64, -1, -101, 0, 0, 0, 0, 0, 0, 0, 0});
                if (!embedded) {
                    assertThat(SpecialAddresses.whyNotPublic(address))
                            .as("seed " + seed + ", " + IpLiterals.formatIpv6(address))
                            .isNotNull();
                }
            }
        }
    }

    private static byte[] v4(String text) {
        byte[] bytes = IpLiterals.parseIpv4Strict(text);
        assertThat(bytes).as(text).isNotNull();
        return bytes;
    }

    private static byte[] v6(String text) {
        byte[] bytes = IpLiterals.parseIpv6(text);
        assertThat(bytes).as(text).isNotNull();
        return bytes;
    }
}

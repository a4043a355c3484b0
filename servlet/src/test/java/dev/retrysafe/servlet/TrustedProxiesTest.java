package dev.retrysafe.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TrustedProxiesTest {

    private final TrustedProxies proxies = TrustedProxies.of(List.of("10.0.0.0/8", "::1/128", "192.168.1.7"));

    @ParameterizedTest(name = "peer {0}, X-Forwarded-For [{1}] -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                // an untrusted peer is the client, whatever it claims
                "203.0.113.9 | 198.51.100.1            | 203.0.113.9",
                // a trusted peer: the rightmost untrusted entry
                "10.1.2.3    | 198.51.100.1            | 198.51.100.1",
                "10.1.2.3    | 6.6.6.6, 198.51.100.1   | 198.51.100.1",
                "10.1.2.3    | 198.51.100.1, 10.9.9.9  | 198.51.100.1",
                "::1         | 198.51.100.1            | 198.51.100.1",
                "192.168.1.7 | 2001:db8::5             | 2001:db8::5",
                "192.168.1.8 | 198.51.100.1            | 192.168.1.8",
                // bracketed IPv6, spaces
                "10.1.2.3    | '  [2001:db8::5] '      | 2001:db8::5",
                // nothing usable: the last trusted hop stands for the client
                "10.1.2.3    | ''                      | 10.1.2.3",
                "10.1.2.3    | 10.4.4.4                | 10.4.4.4",
                "10.1.2.3    | evil.example, 10.4.4.4  | 10.4.4.4",
                "10.1.2.3    | unknown                 | 10.1.2.3",
                "10.1.2.3    | 1.2.3.4:80              | 10.1.2.3",
                "10.1.2.3    | 01.2.3.4                | 10.1.2.3",
            })
    void theClientIsTheRightmostAddressNoTrustedProxyAdded(String peer, String forwardedFor, String client) {
        assertThat(proxies.client(peer, forwardedFor.isEmpty() ? List.of() : List.of(forwardedFor)))
                .isEqualTo(client);
    }

    @org.junit.jupiter.api.Test
    void severalHeaderLinesAreOneList() {
        assertThat(proxies.client("10.1.2.3", List.of("198.51.100.1", "10.7.7.7")))
                .isEqualTo("198.51.100.1");
    }

    @org.junit.jupiter.api.Test
    void withoutTrustedProxiesThePeerIsTheClient() {
        assertThat(TrustedProxies.none().client("10.1.2.3", List.of("198.51.100.1")))
                .isEqualTo("10.1.2.3");
        assertThat(TrustedProxies.none().isEmpty()).isTrue();
    }

    @org.junit.jupiter.api.Test
    void aLongForgedChainIsReadOnlySixteenHopsDeep() {
        String chain = "198.51.100.1, " + String.join(", ", java.util.Collections.nCopies(40, "10.0.0.1"));
        assertThat(proxies.client("10.1.2.3", List.of(chain))).isEqualTo("10.0.0.1");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"10.0.0.0/33", "::1/129", "10.0.0/8", "localhost", "example.com/8", "", "10.0.0.0/-1", "1.2.3.4/"
            })
    void badBlocksAreRefusedByName(String cidr) {
        assertThatThrownBy(() -> TrustedProxies.of(List.of(cidr)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + cidr + "'");
    }
}

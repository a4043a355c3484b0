package dev.retrysafe.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.delivery.TargetDecision.Allowed;
import dev.retrysafe.delivery.TargetDecision.Reason;
import dev.retrysafe.delivery.TargetDecision.Refused;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The guard's URL rules, one at a time; the address tables are in {@code SpecialAddressesTest}. */
class TargetGuardTest {

    private final FakeResolver dns = new FakeResolver()
            .answer("hooks.example.com", "93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946")
            .answer("localhost", "127.0.0.1", "::1")
            .answer("mixed.example.com", "93.184.216.34", "10.1.2.3")
            .answer("empty.example.com");
    private final TargetGuard guard = TargetGuard.builder().resolver(dns).build();

    @Test
    void publicNameIsAllowedWithEveryResolvedAddress() {
        TargetDecision decision = guard.check(URI.create("https://Hooks.Example.COM./v1/hook?x=1#frag"));

        assertThat(decision).isInstanceOf(Allowed.class);
        Allowed allowed = (Allowed) decision;
        assertThat(allowed.host()).isEqualTo("hooks.example.com");
        assertThat(allowed.port()).isEqualTo(443);
        assertThat(allowed.addresses())
                .containsExactly(
                        FakeResolver.literal("93.184.216.34"),
                        FakeResolver.literal("2606:2800:220:1:248:1893:25c8:1946"));
        assertThat(dns.questions()).containsExactly("hooks.example.com");
    }

    @Test
    void publicIpLiteralsAreAllowedWithoutAskingDns() {
        assertThat(guard.check(URI.create("https://8.8.8.8:8443/")))
                .isEqualTo(new Allowed("8.8.8.8", 8443, List.of(FakeResolver.literal("8.8.8.8"))));
        assertThat(guard.check(URI.create("https://[2001:4860:4860::8888]/")))
                .isEqualTo(new Allowed(
                        "[2001:4860:4860::8888]", 443, List.of(FakeResolver.literal("2001:4860:4860::8888"))));
        assertThat(dns.questions()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "https://127.0.0.1/", "https://0177.0.0.1/", "https://0x7f.0.0.1/", "https://0x7F.1/",
                "https://0x7f000001/", "https://2130706433/", "https://017700000001/", "https://127.1/",
                "https://127.0.1/", "https://127.0.0.1./", "https://%31%32%37.0.0.1/", "https://0x7f.0x0.0x0.0x1/",
                "https://127.000.000.001/", "https://0x/"
            })
    void everyIpv4SpellingIsReadAsTheAddressItMeans(String url) {
        TargetDecision decision = guard.check(URI.create(url));

        assertThat(decision).isInstanceOf(Refused.class);
        assertThat(((Refused) decision).reason()).isEqualTo(Reason.NOT_PUBLIC);
        assertThat(dns.questions()).as("a number is never sent to DNS").isEmpty();
    }

    @Test
    void ipv4SpellingsAreNormalisedToDottedQuad() {
        TargetGuard open = TargetGuard.builder()
                .resolver(dns)
                .allowPrivateTargets(List.of("127.0.0.0/8"))
                .build();

        assertThat(((Allowed) open.check(URI.create("https://0x7f.1/"))).host()).isEqualTo("127.0.0.1");
        assertThat(((Allowed) open.check(URI.create("https://2130706433/"))).host())
                .isEqualTo("127.0.0.1");
        assertThat(((Allowed) open.check(URI.create("https://0177.0.0.02/"))).host())
                .isEqualTo("127.0.0.2");
    }

    @ParameterizedTest
    @CsvSource({
        "ftp://hooks.example.com/, UNSUPPORTED_SCHEME",
        "file:///etc/passwd, UNSUPPORTED_SCHEME",
        "gopher://hooks.example.com:70/_x, UNSUPPORTED_SCHEME",
        "javascript:alert(1), UNSUPPORTED_SCHEME",
        "/relative/only, UNSUPPORTED_SCHEME",
        "http://hooks.example.com/, HTTPS_REQUIRED",
        "https://user@hooks.example.com/, USERINFO",
        "https://user:secret@hooks.example.com/, USERINFO",
        "https://hooks.example.com@10.0.0.1/, USERINFO",
        "https:///no-host, MISSING_HOST",
        "https:opaque, MISSING_HOST",
        "https://./, MISSING_HOST",
        "https://hooks.example.com:0/, INVALID_PORT",
        "https://hooks.example.com:65536/, INVALID_PORT",
        "https://hooks.example.com:99999999999/, INVALID_PORT",
        "https://1.2.3.4.5/, INVALID_HOST",
        "https://256.1.1.1/, INVALID_HOST",
        "https://1.2.3.256/, INVALID_HOST",
        "https://0x100000000/, INVALID_HOST",
        "https://4294967296/, INVALID_HOST",
        "https://08.0.0.1/, INVALID_HOST",
        "https://hooks..example.com/, INVALID_HOST",
        "https://hooks.example.com%2F@evil/, USERINFO",
        "https://hooks%2eexample%2ecom%40evil/, INVALID_HOST",
        "https://hooks.example.com%00/, INVALID_HOST",
        "https://%zz/, MALFORMED_URL",
        "https://[::1/, MALFORMED_URL",
        "https://[fe80::1%25eth0]/, INVALID_HOST",
        "https://[v1.fe80::1]/, MALFORMED_URL",
        "https://[1:2:3:4:5:6:7:8:9]/, MALFORMED_URL",
        "https://nowhere.example.com/, UNRESOLVABLE",
        "https://empty.example.com/, UNRESOLVABLE",
        "https://mixed.example.com/, NOT_PUBLIC",
        "https://localhost/, NOT_PUBLIC",
        "https://LOCALHOST./, NOT_PUBLIC"
    })
    void hostileOrBrokenUrlsAreRefusedWithTheirReason(String url, Reason reason) {
        TargetDecision decision = guard.check(url);

        assertThat(decision).isInstanceOf(Refused.class);
        assertThat(((Refused) decision).reason()).isEqualTo(reason);
    }

    @Test
    void textThatIsNoUrlIsMalformedNotAnException() {
        assertThat(guard.check("https://exa mple.com/"))
                .extracting(d -> ((Refused) d).reason())
                .isEqualTo(Reason.MALFORMED_URL);
    }

    @Test
    void oneInternalAddressAmongPublicOnesRefusesTheNameWithoutNamingTheAddress() {
        Refused refused = (Refused) guard.check(URI.create("https://mixed.example.com/"));

        assertThat(refused.message()).contains("Private-Use").doesNotContain("10.1.2.3");
    }

    @Test
    void aFailingResolverRefusesInsteadOfThrowing() {
        TargetGuard broken = TargetGuard.builder()
                .resolver(host -> {
                    throw new IllegalStateException("resolver bug");
                })
                .build();

        assertThat(broken.check(URI.create("https://hooks.example.com/")).allowed())
                .isFalse();
    }

    @Test
    void internationalisedNamesAreResolvedInTheirAsciiForm() {
        dns.answer("xn--bcher-kva.example", "93.184.216.34");

        assertThat(guard.check(URI.create("https://b%C3%BCcher.example/")).allowed())
                .isTrue();
        assertThat(dns.questions()).containsExactly("xn--bcher-kva.example");
    }

    @Test
    void fullwidthAndIdeographicSpellingsOfLoopbackAreStillLoopback() {
        // IDNA maps these to ASCII digits and dots, as a browser or resolver library would
        assertThat(guard.check(URI.create("https://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1/")))
                .extracting(d -> ((Refused) d).reason())
                .isEqualTo(Reason.NOT_PUBLIC);
        assertThat(guard.check(URI.create("https://127%E3%80%820%E3%80%820%E3%80%821/")))
                .extracting(d -> ((Refused) d).reason())
                .isEqualTo(Reason.NOT_PUBLIC);
    }

    @Test
    void allowlistOpensTheListedBlocksOnly() {
        TargetGuard open = TargetGuard.builder()
                .resolver(dns)
                .allowPrivateTargets(List.of("127.0.0.0/8", "::1/128"))
                .requireHttps(false)
                .build();

        assertThat(open.check(URI.create("http://127.0.0.1:8080/")).allowed()).isTrue();
        assertThat(open.check(URI.create("http://localhost:8080/")).allowed()).isTrue();
        assertThat(open.check(URI.create("http://[::1]:8080/")).allowed()).isTrue();
        assertThat(open.check(URI.create("http://[::ffff:127.0.0.1]:8080/")).allowed())
                .as("the mapped form is the same address")
                .isTrue();
        assertThat(open.check(URI.create("http://10.0.0.1/")).allowed()).isFalse();
        assertThat(open.check(URI.create("http://169.254.169.254/")).allowed()).isFalse();
        assertThat(open.check(URI.create("http://[64:ff9b::127.0.0.1]/")).allowed())
                .as("NAT64 to loopback is a different address, not on the list")
                .isFalse();
        assertThat(open.check(URI.create("http://[fe80::1]/")).allowed()).isFalse();
    }

    @Test
    void theDefaultGuardAllowsNoPrivateTargetAndRequiresHttps() {
        TargetGuard defaults = TargetGuard.builder().resolver(dns).build();

        assertThat(defaults.check(URI.create("http://8.8.8.8/")))
                .extracting(d -> ((Refused) d).reason())
                .isEqualTo(Reason.HTTPS_REQUIRED);
        assertThat(defaults.check(URI.create("https://127.0.0.1/")).allowed()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "127.0.0.1",
                "127.0.0.1/8",
                "10.0.0.0/33",
                "::1/129",
                "localhost/8",
                "0x7f.0.0.0/8",
                "127.0.0.0/-1",
                "127.0.0.0/",
                "/8",
                "fe80::1%1/64"
            })
    void malformedAllowlistEntriesAreRejectedNamingTheValue(String cidr) {
        assertThatThrownBy(() -> TargetGuard.builder().allowPrivateTargets(List.of(cidr)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(cidr);
    }

    @Test
    void builtGuardIsNotChangedByItsBuilder() throws Exception {
        TargetGuard.Builder builder =
                TargetGuard.builder().resolver(dns).requireHttps(false).allowPrivateTargets(List.of("127.0.0.0/8"));
        TargetGuard built = builder.build();
        builder.allowPrivateTargets(List.of()).requireHttps(true);

        assertThat(built.check(URI.create("http://127.0.0.1/")).allowed()).isTrue();
        assertThat(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}).isLoopbackAddress())
                .isTrue();
    }
}

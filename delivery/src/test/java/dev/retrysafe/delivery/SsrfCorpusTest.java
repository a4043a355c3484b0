package dev.retrysafe.delivery;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile URLs, refused at registration ({@link TargetGuard#check}) and at attempt time
 * ({@link HttpAttemptSender#send}) with the allowlist off. Names resolve only through a
 * {@link FakeResolver}, and the sender dials through a {@link RecordingGate} that dials nothing:
 * a broken guard fails these tests instead of sending traffic to a real private or public address.
 * Public addresses appear only in fake DNS answers and are never dialled.
 */
class SsrfCorpusTest {

    private static final Map<String, String> SIGNED = Map.of(
            "webhook-id", "msg_corpus",
            "webhook-timestamp", "1767225600",
            "webhook-signature", "v1,c2VjcmV0LXNpZ25hdHVyZS1tdXN0LW5vdC1sZWFr");
    private static final byte[] BODY = "{\"type\":\"payment.succeeded\"}".getBytes(UTF_8);

    private final FakeResolver dns = new FakeResolver()
            .answer("localhost", "127.0.0.1", "::1")
            .answer("metadata.google.internal", "169.254.169.254")
            .answer("internal.example.com", "192.168.0.10")
            .answer("v6-internal.example.com", "fd12:3456::1")
            .answer("mapped.example.com", "::ffff:10.0.0.1")
            .answer("nat64.example.com", "64:ff9b::a9fe:a9fe")
            .answer("127.0.0.1.nip.io", "127.0.0.1")
            .answer("cgnat.example.com", "100.64.1.1")
            .answer("mixed.example.com", "93.184.216.34", "10.0.0.1")
            .answer("mixed-v6.example.com", "2606:2800:220:1:248:1893:25c8:1946", "fe80::1");
    private final RecordingGate gate = RecordingGate.refusing();
    private TargetGuard guard;
    private HttpAttemptSender sender;

    @BeforeEach
    void start() {
        guard = TargetGuard.builder().resolver(dns).build();
        sender = HttpAttemptSender.builder()
                .guard(guard)
                .timeout(Duration.ofMillis(500))
                .connectGate(gate)
                .build();
    }

    @AfterEach
    void stop() {
        sender.close();
    }

    static Stream<String> corpus() {
        return Stream.of(
                // loopback, in every spelling a resolver accepts
                "https://127.0.0.1/",
                "https://127.1/",
                "https://127.0.1/",
                "https://0177.0.0.1/",
                "https://0x7f.0.0.1/",
                "https://0x7F.1/",
                "https://0x7f000001/",
                "https://2130706433/",
                "https://017700000001/",
                "https://127.0.0.1./",
                "https://%31%32%37.0.0.1/",
                "https://127%2E0%2E0%2E1/",
                "https://127.0.0.1:22/",
                "https://127。0。0。1/",
                "https://LOCALHOST/",
                "https://localhost./",
                "https://127.0.0.1.nip.io/",
                "https://[::1]/",
                "https://[0:0:0:0:0:0:0:1]/",
                "https://[::ffff:127.0.0.1]/",
                "https://[::ffff:7f00:1]/",
                "https://[0:0:0:0:0:ffff:127.0.0.1]/",
                "https://[::127.0.0.1]/",
                "https://[2002:7f00:1::]/",
                // unspecified
                "https://0.0.0.0/",
                "https://0/",
                "https://[::]/",
                // private, shared, link-local and cloud metadata
                "https://10.0.0.1/",
                "https://012.0.0.1/",
                "https://167772161/",
                "https://172.16.0.1/",
                "https://172.31.255.255/",
                "https://192.168.1.1/",
                "https://0xc0.0xa8.1.1/",
                "https://100.64.0.1/",
                "https://cgnat.example.com/",
                "https://169.254.169.254/latest/meta-data/",
                "https://2852039166/",
                "https://metadata.google.internal/computeMetadata/v1/",
                "https://[::ffff:169.254.169.254]/",
                "https://[fd00:ec2::254]/",
                "https://nat64.example.com/",
                "https://[2002:a9fe:a9fe::]/",
                "https://internal.example.com/",
                "https://v6-internal.example.com/",
                "https://mapped.example.com/",
                // the rest of the IPv4 special-purpose registry, multicast, reserved, broadcast
                "https://192.0.0.8/",
                "https://192.0.2.1/",
                "https://192.88.99.1/",
                "https://198.18.0.1/",
                "https://198.51.100.7/",
                "https://203.0.113.9/",
                "https://224.0.0.1/",
                "https://239.255.255.250/",
                "https://240.0.0.1/",
                "https://255.255.255.255/",
                // the IPv6 special-purpose registry, NAT64, Teredo, ULA, link- and site-local, multicast
                "https://[64:ff9b::10.0.0.1]/",
                "https://[64:ff9b:1::a00:1]/",
                "https://[100::1]/",
                "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
                "https://[2001:db8::1]/",
                "https://[3fff::1]/",
                "https://[5f00::1]/",
                "https://[fc00::1]/",
                "https://[fe80::1]/",
                "https://[fe80::1%25eth0]/",
                "https://[fec0::1]/",
                "https://[ff02::1]/",
                "https://[::ffff:0:127.0.0.1]/",
                // one public and one private address: any private address refuses the name
                "https://mixed.example.com/",
                "https://mixed-v6.example.com/",
                // URL tricks
                "https://public.example.com@127.0.0.1/",
                "https://user:pass@10.0.0.1/",
                "https://127.0.0.1%2f@x/",
                "https://1.2.3.4.5/",
                "https://256.0.0.1/",
                "http://127.0.0.1/",
                "http://8.8.8.8/",
                "ftp://10.0.0.1/",
                "file:///etc/passwd",
                "gopher://127.0.0.1:6379/_FLUSHALL",
                "dict://127.0.0.1:11211/",
                "javascript:alert(1)",
                "https:///nohost");
    }

    @Test
    void theCorpusCoversAtLeastFortyUrls() {
        assertThat(corpus().count()).isGreaterThanOrEqualTo(40);
    }

    @ParameterizedTest
    @MethodSource("corpus")
    void refusedAtRegistration(String url) {
        assertThat(guard.check(url).allowed()).as(url).isFalse();
    }

    @ParameterizedTest
    @MethodSource("corpus")
    void blockedAtAttemptTimeWithoutDialling(String url) {
        AttemptResult result = sender.send(URI.create(url), SIGNED, BODY);

        assertThat(result.outcome()).as(url).isEqualTo(Outcome.BLOCKED);
        assertThat(result.status()).isNull();
        assertThat(result.detail()).isNotBlank().doesNotContain(SIGNED.get("webhook-signature"));
        assertThat(gate.seen()).as("nothing may be dialled").isEmpty();
    }

    @Test
    void dnsRebindingAfterRegistrationIsBlockedAtTheAttempt() {
        // given: the attacker's DNS answers a public address while the URL is registered
        dns.answer("rebind.example.com", "93.184.216.34");
        assertThat(guard.check("https://rebind.example.com/hook").allowed()).isTrue();

        // when: it answers an internal address by the time of the attempt
        dns.answer("rebind.example.com", "169.254.169.254");
        AttemptResult result = sender.send(URI.create("https://rebind.example.com/hook"), SIGNED, BODY);

        // then
        assertThat(result.outcome()).isEqualTo(Outcome.BLOCKED);
        assertThat(gate.seen()).isEmpty();
        assertThat(dns.questions()).containsExactly("rebind.example.com", "rebind.example.com");
    }

    @Test
    void anUnknownNameIsADnsErrorAndDialsNothing() {
        AttemptResult result = sender.send(URI.create("https://nowhere.example.com/"), SIGNED, BODY);

        assertThat(result.outcome()).isEqualTo(Outcome.DNS_ERROR);
        assertThat(gate.seen()).isEmpty();
    }

    @Test
    void theFakeConnectorCatchesABrokenGuard() {
        // a guard that lets everything through: the test seam must see the address and dial nothing
        TargetGuard broken = url ->
                new TargetDecision.Allowed("internal.example.com", 443, List.of(FakeResolver.literal("10.0.0.1")));
        try (HttpAttemptSender unsafe = HttpAttemptSender.builder()
                .guard(broken)
                .timeout(Duration.ofMillis(500))
                .connectGate(gate)
                .build()) {
            AttemptResult result = unsafe.send(URI.create("https://internal.example.com/"), SIGNED, BODY);

            assertThat(result.outcome()).isEqualTo(Outcome.CONNECTION_ERROR);
            assertThat(gate.seen()).containsExactly(new InetSocketAddress(FakeResolver.literal("10.0.0.1"), 443));
        }
    }
}

package dev.retrysafe.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import org.junit.jupiter.api.Test;

/** The URI the store connects with on Spring Data Redis's client: Lettuce reads back what the factory has. */
class SpringDataRedisStoresTest {

    @Test
    void credentialsWithReservedCharactersSurviveTheUri() {
        String uri = SpringDataRedisStores.uri(
                false, false, SslVerifyMode.FULL, "127.0.0.1", 6390, 3, "us er", "p@ss:w/rd%".toCharArray());

        RedisURI parsed = RedisURI.create(uri);

        assertThat(parsed.isSsl()).isFalse();
        assertThat(parsed.getHost()).isEqualTo("127.0.0.1");
        assertThat(parsed.getPort()).isEqualTo(6390);
        assertThat(parsed.getDatabase()).isEqualTo(3);
        RedisCredentials credentials =
                parsed.getCredentialsProvider().resolveCredentials().block();
        assertThat(credentials.getUsername()).isEqualTo("us er");
        assertThat(new String(credentials.getPassword())).isEqualTo("p@ss:w/rd%");
    }

    @Test
    void aPasswordWithoutUserIsAPasswordEvenWithAColon() {
        RedisURI parsed = RedisURI.create(SpringDataRedisStores.uri(
                false, false, SslVerifyMode.FULL, "localhost", 6379, 0, null, "a:b".toCharArray()));

        RedisCredentials credentials =
                parsed.getCredentialsProvider().resolveCredentials().block();
        assertThat(credentials.hasUsername()).isFalse();
        assertThat(new String(credentials.getPassword())).isEqualTo("a:b");
    }

    @Test
    void tlsStartTlsAndPeerVerificationFollowTheFactory() {
        RedisURI tls =
                RedisURI.create(SpringDataRedisStores.uri(true, false, SslVerifyMode.NONE, "h", 6380, 0, null, null));
        assertThat(tls.isSsl()).isTrue();
        assertThat(tls.isStartTls()).isFalse();
        assertThat(tls.getVerifyMode()).isEqualTo(SslVerifyMode.NONE);

        RedisURI startTls =
                RedisURI.create(SpringDataRedisStores.uri(true, true, SslVerifyMode.FULL, "h", 6380, 0, null, null));
        assertThat(startTls.isSsl()).isTrue();
        assertThat(startTls.isStartTls()).isTrue();
        assertThat(startTls.getVerifyMode()).isEqualTo(SslVerifyMode.FULL);

        RedisURI plain =
                RedisURI.create(SpringDataRedisStores.uri(false, false, SslVerifyMode.FULL, "h", 6379, 0, null, null));
        assertThat(plain.isSsl()).isFalse();
        assertThat(plain.getCredentialsProvider().resolveCredentials().block().hasPassword())
                .isFalse();
    }
}

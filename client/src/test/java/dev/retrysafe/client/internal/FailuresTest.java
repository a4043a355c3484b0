package dev.retrysafe.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.client.FailureKind;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.junit.jupiter.api.Test;

class FailuresTest {

    @Test
    void transientFailuresHaveAKind() {
        assertThat(Failures.transientKind(new ConnectException("Connection refused")))
                .isEqualTo(FailureKind.CONNECT);
        assertThat(Failures.transientKind(new HttpConnectTimeoutException("connect timed out")))
                .isEqualTo(FailureKind.CONNECT);
        assertThat(Failures.transientKind(new HttpTimeoutException("request timed out")))
                .isEqualTo(FailureKind.TIMEOUT);
        assertThat(Failures.transientKind(new IOException("Connection reset"))).isEqualTo(FailureKind.RESET);
        assertThat(Failures.transientKind(new EOFException("EOF reached while reading")))
                .isEqualTo(FailureKind.RESET);
        SSLHandshakeException tlsBlip = new SSLHandshakeException("Remote host terminated the handshake");
        assertThat(Failures.transientKind(tlsBlip))
                .as("a handshake cut short, not a certificate")
                .isEqualTo(FailureKind.RESET);
    }

    @Test
    void failuresThatWouldRepeatHaveNone() {
        assertThat(Failures.transientKind(new UnknownHostException("no-such-host.invalid")))
                .isNull();
        assertThat(Failures.transientKind(new ConnectException("x") {
                    {
                        initCause(new UnknownHostException("wrapped"));
                    }
                }))
                .isNull();
        assertThat(Failures.transientKind(new SSLPeerUnverifiedException("peer not authenticated")))
                .isNull();
        assertThat(Failures.transientKind(new ProtocolException("bad status line")))
                .isNull();
        SSLHandshakeException badCertificate = new SSLHandshakeException("PKIX path building failed");
        badCertificate.initCause(new CertificateException("unable to find valid certification path"));
        assertThat(Failures.transientKind(badCertificate)).isNull();
    }
}

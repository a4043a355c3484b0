package dev.retrysafe.client.internal;

import dev.retrysafe.client.FailureKind;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.jspecify.annotations.Nullable;

/**
 * Sorts an attempt's failure into a transient {@link FailureKind}, or none when it would fail again
 * (after OkHttp's {@code isRecoverable}). Stateless and threadsafe.
 */
public final class Failures {

    /** How deep a chain of causes is searched (chains can loop). */
    private static final int MAX_CAUSES = 16;

    private Failures() {}

    /** The transient kind of {@code failure}, or {@code null} when retrying it is pointless. */
    public static @Nullable FailureKind transientKind(IOException failure) {
        if (isPermanent(failure)) {
            return null;
        }
        if (failure instanceof HttpConnectTimeoutException
                || failure instanceof ConnectException
                || failure instanceof NoRouteToHostException) {
            return FailureKind.CONNECT;
        }
        if (failure instanceof HttpTimeoutException) {
            return FailureKind.TIMEOUT;
        }
        // everything else java.net.http reports is a connection that broke under way: "connection
        // reset", "HTTP/1.1 header parser received no bytes", an EOF, a closed channel
        return FailureKind.RESET;
    }

    /** A misspelt host, a TLS certificate problem or a protocol error: the same again next time. */
    private static boolean isPermanent(IOException failure) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < MAX_CAUSES; depth++, t = t.getCause()) {
            if (t instanceof UnknownHostException
                    || t instanceof SSLPeerUnverifiedException
                    || t instanceof ProtocolException
                    || (t instanceof SSLHandshakeException && hasCertificateCause(t))) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasCertificateCause(Throwable t) {
        Throwable c = t.getCause();
        for (int depth = 0; c != null && depth < MAX_CAUSES; depth++, c = c.getCause()) {
            if (c instanceof java.security.cert.CertificateException) {
                return true;
            }
        }
        return false;
    }
}

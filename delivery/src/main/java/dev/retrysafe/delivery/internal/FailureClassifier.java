package dev.retrysafe.delivery.internal;

import dev.retrysafe.delivery.AttemptResult.Outcome;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import org.eclipse.jetty.client.HttpResponseException;
import org.eclipse.jetty.http.HttpException;

/**
 * Turns the exception that ended an exchange into an outcome class and a detail for people. The
 * detail is a fixed phrase per class (plus the exception's type), never the exception's message:
 * messages of HTTP libraries may quote request headers, and ours carry signatures. Stateless.
 */
public final class FailureClassifier {

    /** An outcome class and what to tell people about it. */
    public record Classified(Outcome outcome, String detail) {}

    private FailureClassifier() {}

    /** Classifies {@code failure}; {@code timeout} is named in the detail of a timeout. */
    public static Classified classify(Throwable failure, String timeout) {
        // the most specific cause wins, so walk the whole chain before falling back on IOException
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof UncheckedTargetException) {
                return new Classified(Outcome.BLOCKED, "connection refused by the SSRF guard: no checked address");
            }
            if (t instanceof TimeoutException || t instanceof SocketTimeoutException) {
                return new Classified(Outcome.TIMEOUT, "no complete answer within " + timeout);
            }
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
                return new Classified(Outcome.DNS_ERROR, "the host did not resolve");
            }
            if (t instanceof SSLException) {
                return new Classified(Outcome.PROTOCOL_ERROR, "TLS failed (" + name(t) + ")");
            }
            if (t instanceof HttpException || t instanceof HttpResponseException) {
                return new Classified(Outcome.PROTOCOL_ERROR, "malformed HTTP answer (" + name(t) + ")");
            }
            if (t instanceof ConnectException || t instanceof NoRouteToHostException) {
                return new Classified(Outcome.CONNECTION_ERROR, "connection refused (" + name(t) + ")");
            }
            if (t instanceof EOFException || t instanceof ClosedChannelException) {
                return new Classified(
                        Outcome.CONNECTION_ERROR, "connection closed before a complete answer (" + name(t) + ")");
            }
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IOException) {
                return new Classified(Outcome.CONNECTION_ERROR, "connection failed or was reset (" + name(t) + ")");
            }
        }
        return new Classified(Outcome.PROTOCOL_ERROR, "the exchange failed (" + name(failure) + ")");
    }

    private static String name(Throwable t) {
        return t.getClass().getSimpleName();
    }
}

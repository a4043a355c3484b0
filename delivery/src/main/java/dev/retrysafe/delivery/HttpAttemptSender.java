package dev.retrysafe.delivery;

import dev.retrysafe.common.MonotonicClock;
import dev.retrysafe.delivery.AttemptResult.Outcome;
import dev.retrysafe.delivery.internal.CheckedAddressResolver;
import dev.retrysafe.delivery.internal.CheckedTarget;
import dev.retrysafe.delivery.internal.ConnectGate;
import dev.retrysafe.delivery.internal.FailureClassifier;
import dev.retrysafe.delivery.internal.Headers;
import dev.retrysafe.delivery.internal.RetryAfter;
import dev.retrysafe.delivery.internal.SnippetListener;
import dev.retrysafe.delivery.internal.Version;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.ProxyAuthenticationProtocolHandler;
import org.eclipse.jetty.client.RedirectProtocolHandler;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.WWWAuthenticationProtocolHandler;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Sends webhook attempts over HTTP/1.1 with Jetty's {@link HttpClient}, the SSRF-safe way:
 *
 * <ul>
 *   <li>every attempt resolves and checks the URL with the {@link TargetGuard}, and the connection
 *       goes only to the addresses that check returned: Jetty's DNS step is replaced by one that
 *       hands out the checked addresses of the attempt's destination, so there is no second
 *       lookup for DNS rebinding to answer differently;</li>
 *   <li>redirects are results ({@code HTTP_ERROR} with the 3xx status), never followed;</li>
 *   <li>the whole attempt (resolution, connection, request, answer) is bounded by the timeout;</li>
 *   <li>at most {@link AttemptResult#MAX_SNIPPET_BYTES} of the answer are read, then the
 *       connection is dropped;</li>
 *   <li>no cookies, no authentication, no content decoding, no proxy.</li>
 * </ul>
 *
 * <p>Each attempt is a {@code POST} of exactly the given bytes with {@code Content-Type:
 * application/json}, {@code User-Agent: Retrysafe-Webhooks/<version>} and the given headers.
 * Nothing is logged; details in results never contain header values.
 *
 * <p>This class is threadsafe: one instance serves every endpoint. {@link #send} blocks, so call it
 * from a virtual thread. {@link #close()} stops the client and abandons attempts in flight.
 */
public final class HttpAttemptSender implements AttemptSender {

    /** The product token of the {@code User-Agent} header. */
    public static final String USER_AGENT = "Retrysafe-Webhooks/" + Version.get();

    private final TargetGuard guard;
    private final Duration timeout;
    private final Clock clock;
    private final HttpClient client;
    // resolution can block far longer than the timeout (system resolver retries), so it runs
    // where the attempt can stop waiting for it
    private final ExecutorService resolvers = Executors.newVirtualThreadPerTaskExecutor();
    private volatile boolean closed;

    private HttpAttemptSender(Builder builder) {
        this.guard = builder.guard;
        this.timeout = builder.timeout;
        this.clock = builder.clock;
        this.client = startClient(builder);
    }

    /** A builder with the defaults: a guard with its defaults, a 5 s timeout, 10 connections per destination. */
    public static Builder builder() {
        return new Builder();
    }

    private static HttpClient startClient(Builder builder) {
        HttpClient client = new HttpClient();
        client.setName("retrysafe-webhooks");
        client.setSocketAddressResolver(new CheckedAddressResolver(builder.connectGate));
        client.setFollowRedirects(false);
        client.setConnectTimeout(builder.timeout.toMillis());
        client.setIdleTimeout(builder.idleTimeout.toMillis());
        client.setMaxConnectionsPerDestination(builder.maxConnectionsPerDestination);
        // one destination per set of checked addresses: sweep the ones no attempt uses any more
        client.setDestinationIdleTimeout(
                Math.max(builder.idleTimeout.toMillis(), Duration.ofMinutes(1).toMillis()));
        // receivers must not be able to plant state that later attempts (to anyone) carry
        client.setHttpCookieStore(new HttpCookieStore.Empty());
        client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, USER_AGENT));
        // TLS names and verifies the host of the URL (the Origin's host), not the address dialled
        SslContextFactory.Client tls = new SslContextFactory.Client();
        tls.setEndpointIdentificationAlgorithm("HTTPS");
        client.setSslContextFactory(tls);
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("the HTTP client did not start", e);
        }
        // HttpClient installs these when it starts. Redirects are never followed; the
        // authentication handlers would buffer a 401 body without our 1 KiB limit
        client.getProtocolHandlers().remove(RedirectProtocolHandler.NAME);
        client.getProtocolHandlers().remove(WWWAuthenticationProtocolHandler.NAME);
        client.getProtocolHandlers().remove(ProxyAuthenticationProtocolHandler.NAME);
        // no Accept-Encoding: the 1 KiB limit is on bytes received, and a gzip bomb stays a few bytes
        client.getContentDecoderFactories().clear();
        return client;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if a header name is not an HTTP token, a value contains a
     *     control character, or a header is one the sender sets itself ({@code Host},
     *     {@code Content-Type}, {@code Content-Length}, {@code Transfer-Encoding},
     *     {@code Connection}, {@code User-Agent}): broken contracts, not failed attempts
     */
    @Override
    public AttemptResult send(URI url, Map<String, String> headers, byte[] body) {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(body, "body");
        Headers.validate(headers);
        long start = MonotonicClock.nanoTime();
        if (closed) {
            return failure(Outcome.CONNECTION_ERROR, start, "the sender is closed");
        }
        TargetDecision decision;
        try {
            decision = checkWithin(url, timeout.toNanos());
        } catch (TimeoutException e) {
            return failure(Outcome.TIMEOUT, start, "resolving the host took longer than " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failure(Outcome.CONNECTION_ERROR, start, "interrupted");
        }
        if (decision instanceof TargetDecision.Refused refused) {
            Outcome outcome =
                    refused.reason() == TargetDecision.Reason.UNRESOLVABLE ? Outcome.DNS_ERROR : Outcome.BLOCKED;
            return failure(outcome, start, refused.message());
        }
        TargetDecision.Allowed allowed = (TargetDecision.Allowed) decision;
        long remaining = timeout.toNanos() - (MonotonicClock.nanoTime() - start);
        if (remaining <= 0) {
            return failure(Outcome.TIMEOUT, start, "resolving the host took longer than " + timeout);
        }
        return exchange(url, allowed, headers, body, start, remaining);
    }

    private TargetDecision checkWithin(URI url, long nanos) throws TimeoutException, InterruptedException {
        Future<TargetDecision> check = resolvers.submit(() -> guard.check(url));
        try {
            return check.get(nanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            // the guard returns values; an exception here is a bug in a resolver, not a pass
            return new TargetDecision.Refused(TargetDecision.Reason.UNRESOLVABLE, "the host could not be resolved");
        } finally {
            check.cancel(true);
        }
    }

    private AttemptResult exchange(
            URI url,
            TargetDecision.Allowed allowed,
            Map<String, String> headers,
            byte[] body,
            long start,
            long remainingNanos) {
        String scheme = url.getScheme().toLowerCase(Locale.ROOT);
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        String pathAndQuery = url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
        // the request names the host the guard normalised (so Host and TLS SNI carry it) and is
        // tagged with the checked addresses, which CheckedAddressResolver dials
        URI target = URI.create(scheme + "://" + allowed.host() + ":" + allowed.port() + pathAndQuery);
        SnippetListener listener = new SnippetListener(AttemptResult.MAX_SNIPPET_BYTES);
        Request request = client.newRequest(target)
                .method(HttpMethod.POST)
                .tag(new CheckedTarget(allowed.host(), allowed.port(), allowed.addresses()))
                .followRedirects(false)
                .timeout(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos)), TimeUnit.MILLISECONDS)
                .headers(fields -> headers.forEach(fields::put))
                .body(new BytesRequestContent("application/json", body));
        try {
            request.send(listener);
        } catch (RuntimeException e) {
            // a client stopped by close() refuses new requests
            return failure(
                    closed ? Outcome.CONNECTION_ERROR : Outcome.PROTOCOL_ERROR,
                    start,
                    closed
                            ? "the sender is closed"
                            : "the request could not be sent (" + e.getClass().getSimpleName() + ")");
        }
        SnippetListener.Exchange exchange;
        try {
            // Jetty's total timeout ends the exchange; the margin only guards against a lost callback
            exchange = listener.result().get(remainingNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            request.abort(e);
            return failure(Outcome.TIMEOUT, start, "no complete answer within " + timeout);
        } catch (InterruptedException e) {
            request.abort(e);
            Thread.currentThread().interrupt();
            return failure(Outcome.CONNECTION_ERROR, start, "interrupted");
        } catch (ExecutionException e) {
            return failure(Outcome.PROTOCOL_ERROR, start, "the exchange failed");
        }
        Throwable failure = exchange.failure();
        if (failure != null) {
            FailureClassifier.Classified classified = FailureClassifier.classify(failure, timeout.toString());
            return failure(classified.outcome(), start, closed ? "the sender is closed" : classified.detail());
        }
        int status = exchange.status();
        Outcome outcome = status >= 200 && status <= 299 ? Outcome.SUCCESS : Outcome.HTTP_ERROR;
        String detail = status >= 300 && status <= 399 ? "redirects are not followed" : "";
        return new AttemptResult(
                outcome,
                status,
                latency(start),
                decode(exchange.snippet()),
                RetryAfter.parse(exchange.retryAfter(), clock.instant()),
                detail);
    }

    private static AttemptResult failure(Outcome outcome, long start, String detail) {
        return new AttemptResult(outcome, null, latency(start), "", null, detail);
    }

    private static Duration latency(long start) {
        return Duration.ofNanos(MonotonicClock.nanoTime() - start);
    }

    private static String decode(byte[] snippet) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(ByteBuffer.wrap(snippet))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new AssertionError("REPLACE never throws", e);
        }
    }

    /** Stops the client; attempts in flight end as failures, later ones are not sent. */
    @Override
    public void close() {
        closed = true;
        try {
            client.stop();
        } catch (Exception e) {
            // stopping is best effort: nothing more can be sent either way
        } finally {
            resolvers.shutdownNow();
        }
    }

    /** Builds an {@link HttpAttemptSender}. Not threadsafe; the built sender keeps a copy of the settings. */
    public static final class Builder {
        private TargetGuard guard = TargetGuard.builder().build();
        private Duration timeout = Duration.ofSeconds(5);
        private Duration idleTimeout = Duration.ofSeconds(30);
        private int maxConnectionsPerDestination = 10;
        private Clock clock = Clock.systemUTC();
        private ConnectGate connectGate = ConnectGate.DIRECT;

        private Builder() {}

        /** The SSRF guard, checked at every attempt; {@code TargetGuard.builder().build()} by default. */
        public Builder guard(TargetGuard guard) {
            this.guard = Objects.requireNonNull(guard, "guard");
            return this;
        }

        /**
         * The most one attempt may take: resolving, connecting, sending and reading the answer
         * (5 s by default; 1 ms to 10 min).
         */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("timeout must be 1 ms to 10 min: " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** How long an unused kept-alive connection stays open (30 s by default; 1 ms to 10 min). */
        public Builder idleTimeout(Duration idleTimeout) {
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            if (idleTimeout.compareTo(Duration.ofMillis(1)) < 0 || idleTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("idleTimeout must be 1 ms to 10 min: " + idleTimeout);
            }
            this.idleTimeout = idleTimeout;
            return this;
        }

        /** Connections to one host and checked address set at once (10 by default; 1 to 1000). */
        public Builder maxConnectionsPerDestination(int max) {
            if (max < 1 || max > 1000) {
                throw new IllegalArgumentException("maxConnectionsPerDestination must be 1 to 1000: " + max);
            }
            this.maxConnectionsPerDestination = max;
            return this;
        }

        /** The wall clock that turns a {@code Retry-After} date into a wait; the system clock by default. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Tests only: sees (and may refuse) every address before it is dialled. */
        Builder connectGate(ConnectGate gate) {
            this.connectGate = Objects.requireNonNull(gate, "gate");
            return this;
        }

        /** Starts a sender with these settings. */
        public HttpAttemptSender build() {
            return new HttpAttemptSender(this);
        }
    }
}

package dev.retrysafe.client;

import dev.retrysafe.testkit.FakeClock;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * An {@link HttpClient} without I/O for tests that need thousands of attempts or attempts that
 * take time: each request gets what the {@code transport} function says, after which the fake clock
 * has moved by the outcome's latency (or by the request's timeout, when the latency is longer: then
 * the attempt fails with {@link HttpTimeoutException}, as the real client would). Records every
 * request. Not threadsafe beyond what the tests need (one call at a time).
 */
final class FakeHttpClient extends HttpClient {

    /**
     * What one attempt meets.
     *
     * @param latency how long it takes
     * @param status the answer's status, or 0 for a failure
     * @param headers the answer's headers
     * @param failure the failure when {@code status} is 0
     * @param body the body the handler gets (an object of the handler's type)
     */
    record Outcome(
            Duration latency,
            int status,
            Map<String, List<String>> headers,
            @Nullable IOException failure,
            @Nullable Object body) {
        static Outcome answer(Duration latency, int status, Map<String, List<String>> headers) {
            return new Outcome(latency, status, headers, null, "");
        }

        static Outcome failure(Duration latency, IOException failure) {
            return new Outcome(latency, 0, Map.of(), failure, null);
        }
    }

    private final FakeClock clock;
    private final Function<HttpRequest, Outcome> transport;
    private final List<HttpRequest> requests = new ArrayList<>();

    FakeHttpClient(FakeClock clock, Function<HttpRequest, Outcome> transport) {
        this.clock = clock;
        this.transport = transport;
    }

    List<HttpRequest> requests() {
        return List.copyOf(requests);
    }

    private volatile boolean closed;

    @Override
    public void close() {
        closed = true;
    }

    boolean closed() {
        return closed;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException {
        requests.add(request);
        Outcome outcome = transport.apply(request);
        Duration timeout = request.timeout().orElseThrow(() -> new AssertionError("every attempt has a timeout"));
        if (outcome.latency().compareTo(timeout) > 0) {
            clock.advance(timeout);
            throw new HttpTimeoutException("request timed out");
        }
        clock.advance(outcome.latency());
        if (outcome.failure() != null) {
            throw outcome.failure();
        }
        return new Response<>(
                request, outcome.status(), HttpHeaders.of(outcome.headers(), (a, b) -> true), (T) outcome.body());
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            return CompletableFuture.completedFuture(send(request, handler));
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
            HttpRequest request, HttpResponse.BodyHandler<T> handler, HttpResponse.PushPromiseHandler<T> push) {
        return sendAsync(request, handler);
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return Optional.empty();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return Optional.empty();
    }

    @Override
    public Redirect followRedirects() {
        return Redirect.NEVER;
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return Optional.empty();
    }

    @Override
    public SSLContext sslContext() {
        throw new UnsupportedOperationException();
    }

    @Override
    public SSLParameters sslParameters() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return Optional.empty();
    }

    @Override
    public Version version() {
        return Version.HTTP_1_1;
    }

    @Override
    public Optional<Executor> executor() {
        return Optional.empty();
    }

    private record Response<T>(HttpRequest request, int statusCode, HttpHeaders headers, T body)
            implements HttpResponse<T> {
        @Override
        public Optional<HttpResponse<T>> previousResponse() {
            return Optional.empty();
        }

        @Override
        public Optional<SSLSession> sslSession() {
            return Optional.empty();
        }

        @Override
        public URI uri() {
            return request.uri();
        }

        @Override
        public Version version() {
            return Version.HTTP_1_1;
        }
    }
}

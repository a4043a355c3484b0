package dev.retrysafe.bench.delivery;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;

/**
 * A fast webhook receiver on 127.0.0.1 (Jetty, no verification): every {@code POST /hooks/...}
 * is read in full and answered {@code 204}; the first arrival time of each event id (the
 * {@code "id"} at the start of the JSON body) is remembered. Both the dispatchers and the load
 * tool that measures the ceiling post here, so they meet the same server doing the same work.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.retrysafe.bench.delivery.Receiver PORT
 *   GET  /stats            requests=N events=M
 *   POST /dump?file=PATH   writes "eventId arrivalEpochMicros" lines, answers the line count
 *   POST /reset            forgets every arrival and the counters
 * </pre>
 *
 * Threadsafe; runs until killed.
 */
public final class Receiver {

    private static final byte[] ID_MEMBER = "\"id\":\"".getBytes(StandardCharsets.US_ASCII);

    private final Map<String, Long> firstArrival = new ConcurrentHashMap<>();
    private final LongAdder requests = new LongAdder();

    private Receiver() {}

    /** Starts the receiver on {@code args[0]} (127.0.0.1 only). */
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        Receiver receiver = new Receiver();
        QueuedThreadPool pool = new QueuedThreadPool(threads, 8);
        pool.setName("receiver");
        Server server = new Server(pool);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        connector.setAcceptQueueSize(1024);
        server.addConnector(connector);
        server.setHandler(receiver.handler());
        server.start();
        System.out.println("receiver listening on 127.0.0.1:" + port);
        server.join();
    }

    private Handler handler() {
        return new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                String path = Request.getPathInContext(request);
                if (path.startsWith("/hooks")) {
                    hook(request, response, callback);
                } else if (path.equals("/stats")) {
                    text(response, callback, "requests=" + requests.sum() + " events=" + firstArrival.size());
                } else if (path.equals("/dump")) {
                    Fields query = Request.extractQueryParameters(request);
                    text(response, callback, Long.toString(dumpArrivals(Path.of(query.getValue("file")))));
                } else if (path.equals("/reset")) {
                    firstArrival.clear();
                    requests.reset();
                    text(response, callback, "reset");
                } else {
                    Response.writeError(request, response, callback, 404);
                }
                return true;
            }
        };
    }

    private void hook(Request request, Response response, Callback callback) throws IOException {
        ByteBuffer body = Content.Source.asByteBuffer(request);
        long now = epochMicros(Instant.now());
        requests.increment();
        String id = eventId(body);
        if (id != null) {
            firstArrival.putIfAbsent(id, now);
        }
        response.setStatus(204);
        callback.succeeded();
    }

    private static void text(Response response, Callback callback, String text) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.write(true, ByteBuffer.wrap((text + "\n").getBytes(StandardCharsets.UTF_8)), callback);
    }

    private long dumpArrivals(Path file) throws IOException {
        long n = 0;
        try (BufferedWriter out = Files.newBufferedWriter(file)) {
            for (Map.Entry<String, Long> e : firstArrival.entrySet()) {
                out.write(e.getKey());
                out.write(' ');
                out.write(Long.toString(e.getValue()));
                out.newLine();
                n++;
            }
        }
        return n;
    }

    /** The value of the first {@code "id":"...} member, or null. */
    static @Nullable String eventId(ByteBuffer body) {
        int limit = body.limit();
        outer:
        for (int i = body.position(); i + ID_MEMBER.length <= limit; i++) {
            for (int j = 0; j < ID_MEMBER.length; j++) {
                if (body.get(i + j) != ID_MEMBER[j]) {
                    continue outer;
                }
            }
            int start = i + ID_MEMBER.length;
            for (int k = start; k < limit; k++) {
                if (body.get(k) == '"') {
                    byte[] id = new byte[k - start];
                    body.get(start, id);
                    return new String(id, StandardCharsets.US_ASCII);
                }
            }
            return null;
        }
        return null;
    }

    static long epochMicros(Instant at) {
        return at.getEpochSecond() * 1_000_000L + at.getNano() / 1_000;
    }
}

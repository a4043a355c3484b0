package dev.retrysafe.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLSocketFactory;

/**
 * Checks that Redis answers, with a tiny RESP exchange ({@code AUTH} when the URL holds
 * credentials, then {@code PING}, or {@code CLUSTER INFO} for a Cluster node) on a fresh socket.
 * No client library: the rate-limit store's client is not the server's to borrow, and a probe
 * must not share its connection's fate.
 */
final class RedisPing {

    private RedisPing() {}

    /** Whether the Redis at {@code url} answers {@code +PONG} within {@code timeout}. */
    static boolean ping(URI url, int port, Duration timeout) {
        return "+PONG".equals(ask(url, port, timeout, "PING"));
    }

    /**
     * Whether the Redis Cluster node at {@code node} (its port given) answers within
     * {@code timeout} that the cluster serves every slot ({@code cluster_state:ok}, the first line
     * of {@code CLUSTER INFO}).
     */
    static boolean clusterServing(URI node, Duration timeout) {
        return "cluster_state:ok".equals(ask(node, node.getPort(), timeout, "CLUSTER", "INFO"));
    }

    /**
     * The first line of Redis's answer to {@code command} (of a bulk answer, the first line of
     * its text), or an empty string when it cannot be had within {@code timeout}.
     */
    private static String ask(URI url, int port, Duration timeout, String... command) {
        int millis = (int) Math.max(1, timeout.toMillis());
        try (Socket socket =
                "rediss".equals(url.getScheme()) ? SSLSocketFactory.getDefault().createSocket() : new Socket()) {
            socket.connect(new InetSocketAddress(url.getHost(), port), millis);
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            if (url.getRawUserInfo() != null) {
                String[] parts = url.getRawUserInfo().split(":", 2);
                String[] auth = parts.length == 2 && !parts[0].isEmpty()
                        ? new String[] {"AUTH", decode(parts[0]), decode(parts[1])}
                        : new String[] {"AUTH", decode(parts[parts.length - 1])};
                out.write(command(auth));
                if (!readLine(in).startsWith("+OK")) {
                    return "";
                }
            }
            out.write(command(command));
            out.flush();
            String line = readLine(in);
            return line.startsWith("$") ? readLine(in) : line;
        } catch (IOException e) {
            return "";
        }
    }

    private static byte[] command(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$')
                    .append(a.getBytes(StandardCharsets.UTF_8).length)
                    .append("\r\n")
                    .append(a)
                    .append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n' && sb.length() < 512) {
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}

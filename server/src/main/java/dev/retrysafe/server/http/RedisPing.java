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
 * Checks that a Redis server answers, with a tiny RESP exchange ({@code AUTH} when the URL holds
 * credentials, then {@code PING}) on a fresh socket. No client library: this is the only Redis
 * use the server has so far.
 */
final class RedisPing {

    private RedisPing() {
    }

    /** Whether the Redis at {@code url} answers {@code +PONG} within {@code timeout}. */
    static boolean ping(URI url, int port, Duration timeout) {
        int millis = (int) timeout.toMillis();
        try (Socket socket = "rediss".equals(url.getScheme())
                ? SSLSocketFactory.getDefault().createSocket() : new Socket()) {
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
                    return false;
                }
            }
            out.write(command("PING"));
            out.flush();
            return readLine(in).equals("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private static byte[] command(String... args) {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
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

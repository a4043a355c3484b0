package dev.retrysafe.ratelimit.redis.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.retrysafe.common.MonotonicClock;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lane's RESP2 client against a fake server on loopback whose replies the test writes byte by
 * byte: what goes on the wire, how each kind of reply is read (also when it arrives a byte at a
 * time), that an error reply leaves the connection in step, and that a missing reply ends at the
 * deadline.
 */
class RespConnectionTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private ServerSocket server;
    private Socket accepted;
    private RespConnection connection;
    /** Commands the fake received, as bytes, in order. */
    private final LinkedBlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
    /** Ends the reads whose replies are late. */
    final Deadlines deadlines = new Deadlines("resp-connection-test");

    /**
     * How replies are awaited: polled for first, as on a machine of two processors (also when the
     * one running the tests has one); {@link RespConnectionWithoutPollingTest} reads without.
     */
    SpinWait spin() {
        return new SpinWait(SpinWait.DEFAULT_LIMIT, 2);
    }

    @BeforeEach
    void connect() throws Exception {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread opener = Thread.ofVirtual().start(() -> {
            try {
                connection = RespConnection.open(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()),
                        SECOND,
                        List.of(),
                        spin(),
                        deadlines);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        server.setSoTimeout(5_000);
        accepted = server.accept();
        accepted.setSoTimeout(5_000);
        assertThat(opener.join(Duration.ofSeconds(5))).isTrue();
        assertThat(connection).isNotNull();
    }

    @AfterEach
    void close() throws IOException {
        if (connection != null) {
            connection.close();
        }
        accepted.close();
        server.close();
        deadlines.close();
    }

    @Test
    void writesAScriptCallAsOneArrayOfBulkStrings() throws Exception {
        answer(":1\r\n");
        Object reply = connection.script(
                ascii("EVALSHA"),
                ascii("abc"),
                new byte[][] {ascii("k{1}")},
                new byte[][] {ascii(""), ascii("12345678901")},
                MonotonicClock.nanoTime() + SECOND);

        assertThat(reply).isEqualTo(1L);
        assertThat(text(received.take()))
                .isEqualTo(
                        "*6\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n1\r\n$4\r\nk{1}\r\n$0\r\n\r\n$11\r\n12345678901\r\n");
    }

    @Test
    void readsNestedArraysOfEveryKindEvenAByteAtATime() throws Exception {
        String reply = "*5\r\n:-42\r\n$5\r\nhello\r\n$-1\r\n*2\r\n:9223372036854775807\r\n+OK\r\n*0\r\n";
        Thread writer = Thread.ofVirtual().start(() -> {
            try {
                readCommand();
                OutputStream out = accepted.getOutputStream();
                for (byte b : ascii(reply)) {
                    out.write(b);
                    out.flush();
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });

        Object value = connection.command(new byte[][] {ascii("PING")}, MonotonicClock.nanoTime() + 5 * SECOND);

        assertThat(writer.join(Duration.ofSeconds(5))).isTrue();
        assertThat(value).isInstanceOf(List.class);
        List<?> values = (List<?>) value;
        assertThat(values).hasSize(5);
        assertThat(values.get(0)).isEqualTo(-42L);
        assertThat((byte[]) values.get(1)).isEqualTo(ascii("hello"));
        assertThat(values.get(2)).isNull();
        List<?> inner = (List<?>) values.get(3);
        assertThat(inner.get(0)).isEqualTo(Long.MAX_VALUE);
        assertThat((byte[]) inner.get(1)).isEqualTo(ascii("OK"));
        assertThat((List<?>) values.get(4)).isEmpty();
    }

    @Test
    void anErrorReplyIsThrownAsLettucesExceptionAndTheNextCommandReadsItsOwnReply() throws Exception {
        answer("-NOSCRIPT No matching script. Please use EVAL.\r\n");
        assertThatThrownBy(
                        () -> connection.command(new byte[][] {ascii("EVALSHA")}, MonotonicClock.nanoTime() + SECOND))
                .isInstanceOf(RedisNoScriptException.class)
                .hasMessageStartingWith("NOSCRIPT");

        answer("-BUSY Redis is busy running a script\r\n");
        assertThatThrownBy(
                        () -> connection.command(new byte[][] {ascii("EVALSHA")}, MonotonicClock.nanoTime() + SECOND))
                .isInstanceOf(RedisBusyException.class);

        // an error inside an array: the whole array is read, then the error thrown
        answer("*3\r\n:1\r\n-ERR inner\r\n:3\r\n");
        assertThatThrownBy(() -> connection.command(new byte[][] {ascii("EVAL")}, MonotonicClock.nanoTime() + SECOND))
                .isExactlyInstanceOf(RedisCommandExecutionException.class)
                .hasMessage("ERR inner");

        answer(":7\r\n");
        assertThat(connection.command(new byte[][] {ascii("PING")}, MonotonicClock.nanoTime() + SECOND))
                .isEqualTo(7L);
        assertThat(received).hasSize(4);
    }

    @Test
    void aReplyThatDoesNotComeEndsAtTheDeadline() {
        long started = MonotonicClock.nanoTime();
        // the read itself waits untimed: the deadlines' thread ends it (bounded here, should it not)
        assertTimeoutPreemptively(
                Duration.ofSeconds(10),
                () -> assertThatThrownBy(() -> connection.command(
                                new byte[][] {ascii("PING")},
                                MonotonicClock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(150)))
                        .isInstanceOf(SocketTimeoutException.class));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(MonotonicClock.nanoTime() - started);
        assertThat(tookMillis).isBetween(140L, 3_000L);
        Conditions.await(() -> deadlines.tracked() == 0, Duration.ofSeconds(5));
    }

    @Test
    void aReplyInTimeLeavesTheConnectionOpenPastItsDeadline() throws Exception {
        long deadline = MonotonicClock.nanoTime() + SECOND;
        answer("+PONG\r\n");
        assertThat((byte[]) connection.command(new byte[][] {ascii("PING")}, deadline))
                .isEqualTo(ascii("PONG"));
        // past the deadline of the read that was answered: its socket must not be closed for it
        Conditions.await(
                () -> deadlines.tracked() == 0 && MonotonicClock.nanoTime() - deadline > 0, Duration.ofSeconds(5));

        answer("+PONG\r\n");
        assertThat((byte[]) connection.command(new byte[][] {ascii("PING")}, MonotonicClock.nanoTime() + SECOND))
                .isEqualTo(ascii("PONG"));
    }

    @Test
    void aClosedConnectionAndGarbageAreIoErrors() throws Exception {
        answer("?what\r\n");
        assertThatThrownBy(() -> connection.command(new byte[][] {ascii("PING")}, MonotonicClock.nanoTime() + SECOND))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("not a RESP2 reply");
        connection.close();

        RespConnection other = reconnect();
        accepted.close();
        assertThatThrownBy(() -> other.command(new byte[][] {ascii("PING")}, MonotonicClock.nanoTime() + SECOND))
                .isInstanceOf(IOException.class);
        other.close();
    }

    @Test
    void aHandshakeErrorFailsTheOpenAndClosesTheSocket() throws Exception {
        try (ServerSocket refusing = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int[] afterError = {0};
            Thread fake = Thread.ofVirtual().start(() -> {
                try (Socket s = refusing.accept()) {
                    RespWire.readCommand(s.getInputStream());
                    s.getOutputStream().write(ascii("-WRONGPASS invalid username-password pair\r\n"));
                    s.getOutputStream().flush();
                    // the client closes its side: the end of the stream
                    afterError[0] = s.getInputStream().read();
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
            assertThatThrownBy(() -> RespConnection.open(
                            new InetSocketAddress(InetAddress.getLoopbackAddress(), refusing.getLocalPort()),
                            SECOND,
                            List.<byte[][]>of(new byte[][] {ascii("AUTH"), ascii("x")}),
                            spin(),
                            deadlines))
                    .isInstanceOf(RedisCommandExecutionException.class)
                    .hasMessageStartingWith("WRONGPASS");
            assertThat(fake.join(Duration.ofSeconds(5))).isTrue();
            assertThat(afterError[0]).isEqualTo(-1);
        }
    }

    private RespConnection reconnect() throws Exception {
        RespConnection[] made = new RespConnection[1];
        Thread opener = Thread.ofVirtual().start(() -> {
            try {
                made[0] = RespConnection.open(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()),
                        SECOND,
                        List.of(),
                        spin(),
                        deadlines);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        accepted.close();
        accepted = server.accept();
        assertThat(opener.join(Duration.ofSeconds(5))).isTrue();
        return made[0];
    }

    /** Answers the next command the fake receives with {@code reply}, from a thread of its own. */
    private void answer(String reply) {
        Thread.ofVirtual().start(() -> {
            try {
                readCommand();
                accepted.getOutputStream().write(ascii(reply));
                accepted.getOutputStream().flush();
            } catch (IOException e) {
                // the test's assertions say what went wrong
            }
        });
    }

    private void readCommand() throws IOException {
        received.add(RespWire.readCommand(accepted.getInputStream()));
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}

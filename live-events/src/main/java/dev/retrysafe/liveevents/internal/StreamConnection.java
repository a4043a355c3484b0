package dev.retrysafe.liveevents.internal;

import dev.retrysafe.common.MonotonicClock;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's stream: Jetty's listener of its WebSocket. It reads one frame at a time (it asks
 * for the next once the last was handled), counts every message against the connection's limit
 * before reading it, answers what it can at once (pings, errors) and hands subscriptions to the
 * {@link EventFeed}; what goes out waits in its bounded {@link Outgoing} buffer. Messages are
 * never logged: an {@code auth} message holds a key. Public only because Jetty calls its listener
 * methods reflectively. Threadsafe.
 */
public final class StreamConnection implements Session.Listener, Subscriber {

    /** Normal closure. */
    static final int NORMAL = 1000;
    /** The server stops, or the peer answered no ping. */
    static final int GOING_AWAY = 1001;
    /** A binary message (only text is taken). */
    static final int UNSUPPORTED_DATA = 1003;
    /** Policy: no valid key, flooding. */
    static final int POLICY_VIOLATION = 1008;
    /** A message over the size limit (Jetty closes with it). */
    static final int MESSAGE_TOO_BIG = 1009;
    /** A full send buffer, too many connections, the database unavailable: come back later. */
    static final int TRY_AGAIN_LATER = 1013;

    private static final Logger LOG = LoggerFactory.getLogger(StreamConnection.class);

    private enum State {
        AWAITING_AUTH,
        OPEN,
        CLOSING
    }

    private final StreamHub hub;
    private final String id;
    private final long openedNanos = MonotonicClock.nanoTime();
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile State state;
    private volatile @Nullable String account;
    private volatile @Nullable Session session;
    private volatile @Nullable Outgoing out;
    private volatile boolean admitted;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean subscribeAsked;
    private volatile int closeCode;
    /** Jetty reported the close: the socket is gone. */
    private volatile boolean ended;

    private volatile long lastPingNanos = MonotonicClock.nanoTime();
    /** When the oldest ping that nothing has followed from the client was sent; 0 if none. */
    private volatile long unansweredSinceNanos;
    /** Messages over the limit since the last one taken (the reading thread only). */
    private int droppedInARow;

    /** A connection authenticated by its upgrade request (of {@code account}) or still to send its key. */
    StreamConnection(StreamHub hub, String id, @Nullable String account) {
        this.hub = hub;
        this.id = id;
        this.account = account;
        this.state = State.AWAITING_AUTH;
    }

    /** The connection's id ({@code ws_...}): names it in the rate limiter and in logs. */
    String id() {
        return id;
    }

    @Override
    public String accountId() {
        String a = account;
        if (a == null) {
            throw new IllegalStateException("connection " + id + " is not authenticated");
        }
        return a;
    }

    /**
     * Gives its place in its account's limit back, once, if it had one; true if it was
     * authenticated (and may have subscribed).
     */
    boolean release() {
        String a = account;
        if (admitted && a != null && released.compareAndSet(false, true)) {
            hub.admissions().release(a, id);
        }
        return admitted;
    }

    // --- Jetty's events ----------------------------------------------------------------------

    @Override
    public void onWebSocketOpen(Session s) {
        session = s;
        out = new Outgoing(
                (text, done, failed) -> s.sendText(text, Callback.from(done, failed)),
                hub.config().bufferMessages(),
                hub.config().bufferBytes(),
                hub.metrics()::buffered);
        hub.opened(this);
        String known = account;
        if (known != null) {
            admit(known);
        }
        s.demand();
    }

    @Override
    public void onWebSocketText(String text) {
        heard();
        try {
            handle(text);
        } finally {
            demand();
        }
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
        callback.succeed();
        heard();
        send(Frame.of(
                ServerMessages.error("binary_not_supported", "Messages are JSON text; binary frames are refused.")));
        close(UNSUPPORTED_DATA, "text only");
    }

    @Override
    public void onWebSocketPong(ByteBuffer payload) {
        heard();
        demand();
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        LOG.debug("stream {}: {}", id, cause.toString());
    }

    @Override
    public void onWebSocketClose(int code, String reason, Callback callback) {
        ended = true;
        state = State.CLOSING;
        closing.set(true);
        Outgoing o = out;
        if (o != null) {
            o.shut();
        }
        hub.closed(this, closeCode != 0 ? closeCode : code);
        callback.succeed();
    }

    // --- messages from the client ------------------------------------------------------------

    private void handle(String text) {
        if (state == State.CLOSING) {
            return;
        }
        long waitMicros = hub.admitMessage(id);
        if (waitMicros > 0) {
            droppedInARow++;
            if (droppedInARow == 1) {
                send(Frame.of(
                        ServerMessages.rateLimited(Math.max(1, Math.ceilDiv(waitMicros, 1_000_000L)), hub.config())));
            }
            if (droppedInARow >= hub.config().floodCloseAfter()) {
                hub.metrics().floods.increment();
                close(POLICY_VIOLATION, "flooding");
            }
            return;
        }
        droppedInARow = 0;
        ClientMessage message = ClientMessage.parse(text, hub::isEventId);
        if (state == State.AWAITING_AUTH) {
            if (message instanceof ClientMessage.Auth auth) {
                authenticate(auth.apiKey());
            } else {
                refuse(
                        "auth_required",
                        "Send {\"type\":\"auth\",\"api_key\":\"...\"} first (or the key in the"
                                + " upgrade request's Authorization header).");
            }
            return;
        }
        switch (message) {
            case ClientMessage.Auth a ->
                send(Frame.of(
                        ServerMessages.error("already_authenticated", "This connection is authenticated already.")));
            case ClientMessage.Subscribe s -> {
                subscribeAsked = true;
                hub.feed().subscribe(this, s.filter(), null);
            }
            case ClientMessage.Resume r -> {
                if (subscribeAsked) {
                    send(Frame.of(ServerMessages.error(
                            "already_subscribed",
                            "Resume only on a connection that is not"
                                    + " subscribed yet; send subscribe to change what you receive.")));
                } else {
                    subscribeAsked = true;
                    hub.feed().subscribe(this, r.filter(), r.after());
                }
            }
            case ClientMessage.Ping p -> send(Frame.of(ServerMessages.pong(p.id())));
            case ClientMessage.Invalid i -> send(Frame.of(ServerMessages.error(i.code(), i.message())));
        }
    }

    private void authenticate(String apiKey) {
        StreamHub.KeyCheck check = hub.check(apiKey);
        switch (check) {
            case StreamHub.KeyCheck.Valid v -> admit(v.accountId());
            case StreamHub.KeyCheck.Invalid i -> refuse("unauthorized", "The API key is not valid.");
            case StreamHub.KeyCheck.Unavailable u -> {
                send(Frame.of(ServerMessages.error(
                        "unavailable", "The API key cannot be checked right now; connect again in a moment.")));
                close(TRY_AGAIN_LATER, "unavailable");
            }
        }
    }

    private void admit(String known) {
        switch (hub.admissions().admit(known, id)) {
            case ADMITTED -> {
                // it has a place: carries on below
            }
            case FULL -> {
                send(Frame.of(ServerMessages.error(
                        "too_many_connections",
                        "This account has " + hub.config().maxConnectionsPerAccount() + " streams open already.")));
                close(TRY_AGAIN_LATER, "too many connections");
                return;
            }
            case UNAVAILABLE -> {
                send(Frame.of(ServerMessages.error(
                        "unavailable",
                        "The account's streams cannot be counted right now; connect again in a moment.")));
                close(TRY_AGAIN_LATER, "unavailable");
                return;
            }
        }
        account = known;
        admitted = true;
        state = State.OPEN;
        if (closing.get()) {
            release(); // closed meanwhile: the close may not have seen it admitted
            return;
        }
        send(Frame.of(ServerMessages.welcome(id, hub.config())));
    }

    private void refuse(String code, String message) {
        hub.metrics().authFailures.increment();
        send(Frame.of(ServerMessages.error(code, message)));
        close(POLICY_VIOLATION, code);
    }

    // --- to the client -----------------------------------------------------------------------

    @Override
    public void send(Frame frame) {
        Outgoing o = out;
        if (o == null || closing.get()) {
            return;
        }
        hub.metrics().framesQueued.increment();
        if (!o.offer(frame)) {
            overflow();
        }
    }

    @Override
    public void subscribeFailed() {
        subscribeAsked = false;
    }

    /**
     * Its place in the account's count was lost (its instance could not renew it for a whole lease,
     * and another stream may have it now): the client is told, and the connection closes.
     */
    void placeLost() {
        send(Frame.of(ServerMessages.error(
                "unavailable",
                "This server could not keep the stream's place in"
                        + " the account's count (it could not reach the database); connect again.")));
        close(TRY_AGAIN_LATER, "place lost");
    }

    /** Frames waiting in its buffer now. */
    int buffered() {
        Outgoing o = out;
        return o == null ? 0 : o.messages();
    }

    /**
     * The consumer fell a full buffer behind: the buffer is dropped, the client is told if the
     * socket still takes a frame (the note goes past the buffer), and the connection closes.
     */
    private void overflow() {
        if (closing.get()) {
            return;
        }
        hub.metrics().overflows.increment();
        Session s = session;
        if (s != null) {
            s.sendText(
                    ServerMessages.error(
                            "buffer_overflow",
                            "You fell " + hub.config().bufferMessages()
                                    + " messages behind; reconnect and resume after the last event you received."),
                    Callback.NOOP);
        }
        close(TRY_AGAIN_LATER, "buffer overflow");
    }

    /** Closes with {@code code}; the socket is dropped if the close handshake has not ended within the grace. */
    void close(int code, String reason) {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closeCode = code;
        state = State.CLOSING;
        Outgoing o = out;
        if (o != null) {
            o.shut();
        }
        Session s = session;
        if (s != null) {
            s.close(code, reason, Callback.NOOP);
            hub.disconnectLater(this);
        }
    }

    /**
     * Drops the socket unless the close has ended (a peer that does not read cannot even get the
     * close frame; Jetty's {@code isOpen()} is already false while a close is under way).
     */
    void disconnect() {
        Session s = session;
        if (s != null && !ended) {
            s.disconnect();
        }
    }

    // --- liveness ----------------------------------------------------------------------------

    private void heard() {
        unansweredSinceNanos = 0;
    }

    private void demand() {
        Session s = session;
        if (s != null && !closing.get()) {
            s.demand();
        }
    }

    /** The hub's clock tick: closes a connection that never authenticated or stopped answering, pings the others. */
    void tick(long nowNanos) {
        if (closing.get()) {
            return;
        }
        if (state == State.AWAITING_AUTH
                && nowNanos - openedNanos > hub.config().authTimeout().toNanos()) {
            refuse(
                    "auth_timeout",
                    "No API key came within " + hub.config().authTimeout().toMillis() + " ms.");
            return;
        }
        long unanswered = unansweredSinceNanos;
        if (unanswered != 0
                && nowNanos - unanswered > hub.config().pongTimeout().toNanos()) {
            hub.metrics().dead.increment();
            close(GOING_AWAY, "no pong");
            return;
        }
        if (nowNanos - lastPingNanos >= hub.config().pingInterval().toNanos()) {
            lastPingNanos = nowNanos;
            if (unanswered == 0) {
                unansweredSinceNanos = nowNanos == 0 ? 1 : nowNanos;
            }
            Session s = session;
            if (s != null) {
                s.sendPing(ByteBuffer.allocate(0), Callback.NOOP);
            }
        }
    }
}

package dev.retrysafe.liveevents.internal;

import dev.retrysafe.liveevents.Callers;
import dev.retrysafe.liveevents.ProblemWriter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Serial;
import java.time.Duration;
import java.util.Map;
import org.eclipse.jetty.ee10.websocket.server.JettyWebSocketServlet;
import org.eclipse.jetty.ee10.websocket.server.JettyWebSocketServletFactory;

/**
 * The stream's path: upgrades to a WebSocket whose listener is a
 * {@link StreamConnection}. A Jetty WebSocket servlet rather than a Javalin WebSocket route, because
 * the stream needs what Javalin's handlers do not expose: the client's pongs (to find dead
 * connections) and reading one frame at a time. It sits behind the application's servlet filters
 * (authentication; in the server also the rate limit of the upgrade request). Jetty closes a connection whose
 * message is over the size limit with 1009, also a message in fragments as soon as their running
 * total is over it. A GET or HEAD that is not an upgrade is answered {@code 426} (another method
 * {@code 405}), a broken upgrade {@code 400}, by the application's {@link ProblemWriter}.
 */
final class StreamServlet extends JettyWebSocketServlet {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient StreamHub hub;
    private final transient Callers callers;
    private final transient ProblemWriter problems;

    StreamServlet(StreamHub hub, Callers callers, ProblemWriter problems) {
        this.hub = hub;
        this.callers = callers;
        this.problems = problems;
    }

    @Override
    protected void configure(JettyWebSocketServletFactory factory) {
        // a frame announcing more is refused from its header, before its payload is read
        factory.setMaxFrameSize(hub.config().maxMessageBytes());
        factory.setMaxTextMessageSize(hub.config().maxMessageBytes());
        factory.setMaxBinaryMessageSize(hub.config().maxMessageBytes());
        // the hub's pings keep a live connection busy; Jetty's own timeout is only the backstop
        Duration ping = hub.config().pingInterval();
        factory.setIdleTimeout(ping.plus(ping)
                .plus(hub.config().pongTimeout())
                .plus(hub.config().authTimeout()));
        factory.setCreator((request, response) -> hub.connection(callers.accountOf(request.getHttpServletRequest())));
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        boolean head = "HEAD".equals(request.getMethod());
        if (!head && !"GET".equals(request.getMethod())) {
            problems.write(
                    response,
                    HttpServletResponse.SC_METHOD_NOT_ALLOWED,
                    request.getMethod() + " is not accepted here; open the stream with GET (a WebSocket upgrade).",
                    Map.of("Allow", "GET, HEAD"));
            return;
        }
        String upgrade = request.getHeader("Upgrade");
        // HEAD is answered as a GET that is no upgrade (Jetty sends no body), as every GET route answers HEAD
        if (head || upgrade == null || !upgrade.equalsIgnoreCase("websocket")) {
            problems.write(
                    response,
                    HttpServletResponse.SC_UPGRADE_REQUIRED,
                    "This path is a WebSocket; connect with a WebSocket client.",
                    Map.of("Upgrade", "websocket", "Connection", "Upgrade"));
            return;
        }
        super.service(request, response);
    }

    /** Reached only when Jetty did not take the upgrade (a handshake header missing or wrong). */
    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        problems.write(
                response,
                HttpServletResponse.SC_BAD_REQUEST,
                "Not a valid WebSocket upgrade: send Connection: Upgrade, Sec-WebSocket-Key and Sec-WebSocket-Version: 13.",
                Map.of());
    }
}

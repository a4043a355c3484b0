package dev.retrysafe.acceptance.libraries;

import jakarta.servlet.DispatcherType;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** The example application on plain Jetty 12 (ee10): the filters, in order, on a ServletContextHandler. */
public final class JettyApp {

    private JettyApp() {}

    public static void main(String[] args) throws Exception {
        start(OrdersApplication.fromEnvironment(), new InetSocketAddress(8080)).join();
    }

    /** Starts {@code app} on {@code address} (port 0: a free one). */
    public static Server start(OrdersApplication app, InetSocketAddress address) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(address.getHostString());
        connector.setPort(address.getPort());
        server.addConnector(connector);

        ServletContextHandler context = new ServletContextHandler();
        EnumSet<DispatcherType> requests = EnumSet.of(DispatcherType.REQUEST);
        // filters run in the order they are added: authentication first, then Retrysafe's decisions
        context.addFilter(new FilterHolder(app.authentication()), "/v1/*", requests);
        context.addFilter(new FilterHolder(app.requestDecisions()), "/v1/*", requests);
        context.addFilter(new FilterHolder(app.webhookReceiver()), "/webhooks/*", requests);
        context.addServlet(new ServletHolder(app.orders()), "/v1/orders");
        context.addServlet(new ServletHolder(app.webhookEvents()), "/webhooks/orders");
        server.setHandler(context);
        server.start();
        return server;
    }
}

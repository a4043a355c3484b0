package dev.retrysafe.acceptance.libraries;

import jakarta.servlet.Filter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/** The example application on embedded Tomcat 11: the filters, in order, on a context. */
public final class TomcatApp {

    private TomcatApp() {}

    public static void main(String[] args) throws Exception {
        Tomcat tomcat = start(
                OrdersApplication.fromEnvironment(), new InetSocketAddress(8080), Files.createTempDirectory("tomcat"));
        tomcat.getServer().await();
    }

    /** Starts {@code app} on {@code address} (port 0: a free one), with Tomcat's work files in {@code baseDir}. */
    public static Tomcat start(OrdersApplication app, InetSocketAddress address, Path baseDir)
            throws LifecycleException {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(baseDir.toString());
        Connector connector = new Connector();
        connector.setProperty("address", address.getHostString());
        connector.setPort(address.getPort());
        tomcat.setConnector(connector);

        Context context = tomcat.addContext("", null);
        // filters run in the order their mappings are added: authentication first, then Retrysafe's decisions
        addFilter(context, "authentication", app.authentication(), "/v1/*");
        addFilter(context, "retrysafe-decisions", app.requestDecisions(), "/v1/*");
        addFilter(context, "retrysafe-webhooks", app.webhookReceiver(), "/webhooks/*");
        Tomcat.addServlet(context, "orders", app.orders());
        context.addServletMappingDecoded("/v1/orders", "orders");
        Tomcat.addServlet(context, "webhook-events", app.webhookEvents());
        context.addServletMappingDecoded("/webhooks/orders", "webhook-events");
        tomcat.start();
        return tomcat;
    }

    private static void addFilter(Context context, String name, Filter filter, String urlPattern) {
        FilterDef definition = new FilterDef();
        definition.setFilterName(name);
        definition.setFilter(filter);
        context.addFilterDef(definition);
        FilterMap mapping = new FilterMap();
        mapping.setFilterName(name);
        mapping.addURLPattern(urlPattern);
        context.addFilterMap(mapping);
    }
}

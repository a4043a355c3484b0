package dev.retrysafe.server;

import dev.retrysafe.server.config.ServerConfig;
import java.util.function.UnaryOperator;

/** The report and job contract on the embedded H2 database. */
class ReportsApiH2Test extends ReportsApiContract {

    @Override
    TestServer startServer(UnaryOperator<ServerConfig> settings) {
        return TestServer.h2().configure(settings).start();
    }
}

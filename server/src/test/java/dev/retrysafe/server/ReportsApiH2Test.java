package dev.retrysafe.server;

import java.util.function.UnaryOperator;

/** The report and job contract on the embedded H2 database. */
class ReportsApiH2Test extends ReportsApiContract {

    @Override
    TestServer startServer(UnaryOperator<TestServer.Builder> setup) {
        return setup.apply(TestServer.h2()).start();
    }
}

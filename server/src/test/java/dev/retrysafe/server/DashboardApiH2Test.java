package dev.retrysafe.server;

/** The dashboard's routes on the embedded H2 database. */
class DashboardApiH2Test extends DashboardApiContract {

    @Override
    TestServer.Builder server() {
        return TestServer.h2();
    }
}

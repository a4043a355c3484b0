package dev.retrysafe.server;

/** The payments contract on the embedded H2 database. */
class PaymentsApiH2Test extends PaymentsApiContract {

    @Override
    TestServer startServer() {
        return TestServer.h2().start();
    }
}

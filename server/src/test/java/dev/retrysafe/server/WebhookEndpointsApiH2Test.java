package dev.retrysafe.server;

/** The webhook endpoint contract on the embedded H2 database. */
class WebhookEndpointsApiH2Test extends WebhookEndpointsApiContract {

    @Override
    TestServer startServer() {
        return TestServer.h2().start();
    }
}

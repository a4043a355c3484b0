package dev.retrysafe.server;

/**
 * H2's {@code AUTO_SERVER} mode opens a TCP port so that a second process (such as
 * {@code create-account}) can use the file while the server runs. It should only ever be
 * reachable from this machine.
 */
final class EmbeddedH2 {

    private static final String BIND_ADDRESS = "h2.bindAddress";

    private EmbeddedH2() {
    }

    /**
     * Makes H2 bind its automatic server to the loopback address. H2 reads the property once, so
     * this must run before the first H2 connection of the process; an explicit setting wins.
     */
    static void loopbackOnly() {
        if (System.getProperty(BIND_ADDRESS) == null) {
            System.setProperty(BIND_ADDRESS, "127.0.0.1");
        }
    }
}

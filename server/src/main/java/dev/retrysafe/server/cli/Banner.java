package dev.retrysafe.server.cli;

import dev.retrysafe.server.RetrysafeServer;
import dev.retrysafe.server.config.ServerConfig;
import java.nio.file.Path;

/** What {@code serve} prints once it answers: where to go next. Stateless. */
final class Banner {

    private Banner() {}

    /**
     * The lines printed when the server listens on {@code port}: its start page, the dashboard,
     * the API docs and, with the embedded database, the file that holds the demo account's key.
     */
    static String ready(int port, ServerConfig config) {
        String base = "http://localhost:" + port;
        StringBuilder text = new StringBuilder()
                .append("Retrysafe is ready on ")
                .append(base)
                .append(" (Ctrl-C stops it)\n")
                .append("  Start page: ")
                .append(base)
                .append("/\n")
                .append("  Dashboard:  ")
                .append(base)
                .append("/dashboard\n")
                .append("  API docs:   ")
                .append(base)
                .append("/docs\n");
        Path demoKey = RetrysafeServer.demoKeyFile(config);
        if (demoKey != null) {
            text.append("  Demo key:   ").append(demoKey).append('\n');
        }
        return text.toString();
    }
}

package dev.retrysafe.server.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The server's version, as the build wrote it into {@value #RESOURCE}. Stateless. */
final class Version {

    /** The class path resource the build fills in from the POM's version. */
    static final String RESOURCE = "/retrysafe-version.properties";

    private Version() {}

    /** The version, such as {@code 0.1.0-SNAPSHOT}. */
    static String number() {
        try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The line {@code --version} prints: the version and the Java runtime it runs on. */
    static String line() {
        return "retrysafe " + number() + " (Java " + Runtime.version().feature() + ", "
                + System.getProperty("java.vm.vendor", "unknown vendor") + ")";
    }
}

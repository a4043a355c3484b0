package dev.retrysafe.delivery.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version of this module, for the {@code User-Agent}; read once. */
public final class Version {

    private static final String VERSION = read();

    private Version() {}

    /** The version, e.g. {@code 0.1.0}; {@code dev} when run from classes rather than the jar. */
    public static String get() {
        return VERSION;
    }

    private static String read() {
        String fromManifest = Version.class.getPackage().getImplementationVersion();
        if (fromManifest != null) {
            return fromManifest;
        }
        // Maven writes this file into every jar it builds
        try (InputStream in =
                Version.class.getResourceAsStream("/META-INF/maven/dev.retrysafe/retrysafe-delivery/pom.properties")) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                return properties.getProperty("version", "dev");
            }
        } catch (IOException e) {
            // fall through: a missing version must not stop webhooks
        }
        return "dev";
    }
}

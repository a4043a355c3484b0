package dev.retrysafe.delivery.internal;

import dev.retrysafe.common.SchemaScripts;
import java.util.List;

/**
 * The module's DDL, kept in resources: {@code delivery.sql} (the current schema) and
 * {@code delivery-upgrade-<version>.sql} (from the version before to that one), read and split
 * by {@link SchemaScripts}. Threadsafe.
 */
public final class SchemaResource {

    /** The version {@code delivery.sql} creates. */
    public static final int VERSION = 3;

    // a lambda of this module: the resources are encapsulated in it
    private static final SchemaScripts SCRIPTS = new SchemaScripts(
            "/dev/retrysafe/delivery/delivery", VERSION, name -> SchemaResource.class.getResourceAsStream(name));

    private SchemaResource() {
    }

    /** The current schema script exactly as stored. */
    public static String text() {
        return SCRIPTS.text();
    }

    /** The current schema's statements without comments or terminators, in order. */
    public static List<String> statements() {
        return SCRIPTS.statements();
    }

    /**
     * The statements that bring a schema of version {@code from} (1 to {@link #VERSION}) to the
     * current one, oldest upgrade first; none if it is current.
     */
    public static List<String> upgradeStatements(int from) {
        return SCRIPTS.upgradeStatements(from);
    }
}

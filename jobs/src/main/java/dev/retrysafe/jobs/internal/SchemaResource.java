package dev.retrysafe.jobs.internal;

import dev.retrysafe.common.SchemaScripts;
import java.util.List;

/**
 * The module's DDL, kept in resources: {@code jobs.sql} (the current schema) and
 * {@code jobs-upgrade-<version>.sql} (from the version before to that one), read and split by
 * {@link SchemaScripts}. Threadsafe.
 */
public final class SchemaResource {

    /** The version {@code jobs.sql} creates. */
    public static final int VERSION = 2;

    // a lambda of this module: the resources are encapsulated in it
    private static final SchemaScripts SCRIPTS = new SchemaScripts(
            "/dev/retrysafe/jobs/jobs", VERSION, name -> SchemaResource.class.getResourceAsStream(name));

    private SchemaResource() {
    }

    /** The script exactly as stored. */
    public static String text() {
        return SCRIPTS.text();
    }

    /** The script's statements without comments or terminators, in order. */
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

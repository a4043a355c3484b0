package dev.retrysafe.idempotency.internal;

import dev.retrysafe.common.SchemaScripts;
import java.util.List;

/**
 * The store's DDL, kept in the resource {@code idempotency_keys.sql} next to the public facade,
 * read and split by {@link SchemaScripts}. Threadsafe.
 */
public final class SchemaScript {

    // a lambda of this module: the resource is encapsulated in it
    private static final SchemaScripts SCRIPTS = new SchemaScripts(
            "/dev/retrysafe/idempotency/idempotency_keys", 1, name -> SchemaScript.class.getResourceAsStream(name));

    private SchemaScript() {}

    /** The script exactly as stored. */
    public static String text() {
        return SCRIPTS.text();
    }

    /** The script's statements without comments or terminators, in order. */
    public static List<String> statements() {
        return SCRIPTS.statements();
    }
}

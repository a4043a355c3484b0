package dev.retrysafe.delivery.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The module's DDL, kept in resources: {@code delivery.sql} (the current schema) and
 * {@code delivery-upgrade-<version>.sql} (from the version before to that one). The scripts have
 * no semicolons other than statement terminators, so splitting on them is exact. Threadsafe.
 */
public final class SchemaResource {

    /** The version {@code delivery.sql} creates. */
    public static final int VERSION = 3;

    private static final String SCHEMA = "/dev/retrysafe/delivery/delivery.sql";

    private SchemaResource() {
    }

    /** The current schema script exactly as stored. */
    public static String text() {
        return read(SCHEMA);
    }

    /** The current schema's statements without comments or terminators, in order. */
    public static List<String> statements() {
        return split(text());
    }

    /**
     * The statements that bring a schema of version {@code from} (1 to {@link #VERSION}) to the
     * current one, oldest upgrade first; none if it is current.
     */
    public static List<String> upgradeStatements(int from) {
        if (from < 1 || from > VERSION) {
            throw new IllegalArgumentException("fromVersion must be 1 to " + VERSION + ", was " + from);
        }
        List<String> out = new ArrayList<>();
        for (int v = from + 1; v <= VERSION; v++) {
            out.addAll(split(read("/dev/retrysafe/delivery/delivery-upgrade-" + v + ".sql")));
        }
        return List.copyOf(out);
    }

    private static String read(String resource) {
        try (InputStream in = SchemaResource.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + resource, e);
        }
    }

    private static List<String> split(String script) {
        StringBuilder withoutComments = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.strip().startsWith("--")) {
                withoutComments.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String statement : withoutComments.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        return List.copyOf(statements);
    }
}

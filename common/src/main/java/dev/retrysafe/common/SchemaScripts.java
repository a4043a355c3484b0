package dev.retrysafe.common;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A module's DDL kept in resources: {@code <base>.sql} (the current schema) and
 * {@code <base>-upgrade-<version>.sql} (from the version before to that one). The scripts have
 * no semicolons other than statement terminators, so splitting on them is exact. Threadsafe.
 */
public final class SchemaScripts {

    private final String base;
    private final int version;
    private final Resources resources;

    /**
     * Opens a resource of the module that owns the scripts. It must be that module's code (such as
     * {@code name -> Owner.class.getResourceAsStream(name)}): a named module's resources are open
     * to itself only, so this module could not read them.
     */
    @FunctionalInterface
    public interface Resources {
        /** The resource {@code name} (absolute), or {@code null} when there is none. */
        @Nullable
        InputStream open(String name);
    }

    /**
     * The scripts {@code base + ".sql"} (which creates schema {@code version}) and its upgrades,
     * {@code base} being an absolute resource name without extension, such as
     * {@code /dev/retrysafe/jobs/jobs}.
     */
    public SchemaScripts(String base, int version, Resources resources) {
        if (version < 1) {
            throw new IllegalArgumentException("version must be at least 1, was " + version);
        }
        this.base = base;
        this.version = version;
        this.resources = resources;
    }

    /** The current schema's script exactly as stored. */
    public String text() {
        return read(base + ".sql");
    }

    /** The current schema's statements without comments or terminators, in order. */
    public List<String> statements() {
        return statements(text());
    }

    /**
     * The statements that bring a schema of version {@code from} (1 to the current version) to
     * the current one, oldest upgrade first; none if it is current.
     */
    public List<String> upgradeStatements(int from) {
        if (from < 1 || from > version) {
            throw new IllegalArgumentException("fromVersion must be 1 to " + version + ", was " + from);
        }
        List<String> out = new ArrayList<>();
        for (int v = from + 1; v <= version; v++) {
            out.addAll(statements(read(base + "-upgrade-" + v + ".sql")));
        }
        return List.copyOf(out);
    }

    /** The resource {@code name} of the owning module as UTF-8 text. */
    public String read(String name) {
        try (InputStream in = resources.open(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + name, e);
        }
    }

    /**
     * The statements of {@code script} without comment lines or terminators, in order; a script
     * whose only semicolons end statements.
     */
    public static List<String> statements(String script) {
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

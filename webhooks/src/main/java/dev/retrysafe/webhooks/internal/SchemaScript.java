package dev.retrysafe.webhooks.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The JDBC de-duplicator's DDL, kept in the resource {@code received_webhooks.sql} next to the
 * public facade. The script has no semicolons other than statement terminators, so splitting on
 * them is exact. Threadsafe.
 *
 * <p>It splits as {@code dev.retrysafe.common.SchemaScripts} does, which every other module uses,
 * without depending on it: this module takes nothing but the JDK, so that a receiver that only
 * verifies webhooks pulls in one jar (ARCHITECTURE.md).
 */
public final class SchemaScript {

    private static final String RESOURCE = "/dev/retrysafe/webhooks/received_webhooks.sql";

    private SchemaScript() {}

    /** The script exactly as stored. */
    public static String text() {
        try (InputStream in = SchemaScript.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + RESOURCE, e);
        }
    }

    /** The script's statements without comments or terminators, in order. */
    public static List<String> statements() {
        StringBuilder withoutComments = new StringBuilder();
        for (String line : text().split("\n")) {
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

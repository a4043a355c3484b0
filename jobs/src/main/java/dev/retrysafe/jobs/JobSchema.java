package dev.retrysafe.jobs;

import dev.retrysafe.jobs.internal.SchemaResource;
import java.util.List;

/**
 * The DDL of the jobs module: tables {@code jobs}, {@code job_results} and {@code job_kinds} with
 * their indexes, runnable unchanged on PostgreSQL 15+ and H2 2.x ({@code MODE=PostgreSQL}). The
 * server applies it from a versioned migration; the library stays the owner of the text.
 * Threadsafe.
 */
public final class JobSchema {

    private JobSchema() {
    }

    /**
     * The whole script: several statements, each ended by {@code ;} at the end of a line, and
     * {@code --} comment lines. Both drivers accept it in one {@code Statement.execute}; to run
     * the statements one by one use {@link #schemaStatements()}.
     */
    public static String schemaSql() {
        return SchemaResource.text();
    }

    /** The statements of {@link #schemaSql()}, in order, without comments or terminators. */
    public static List<String> schemaStatements() {
        return SchemaResource.statements();
    }
}

package dev.retrysafe.delivery;

import dev.retrysafe.common.SchemaScripts;
import java.util.List;

/**
 * The DDL of the delivery module: tables {@code webhook_endpoints},
 * {@code webhook_endpoint_event_types}, {@code deliveries} and {@code delivery_attempts} with their
 * indexes, runnable unchanged on PostgreSQL 15+ and H2 2.x ({@code MODE=PostgreSQL}). The server
 * applies it from versioned migrations; the library stays the owner of the text. Threadsafe.
 *
 * <p>Versions: 1 is the first release; 2 adds the per-endpoint rate limit
 * ({@code webhook_endpoints.rate_limit} and its schedule {@code rate_next_slot_ns}); 3 adds the
 * index by start time that endpoint health and attempt statistics read with; 4 (delivery v2) adds
 * pausing ({@code webhook_endpoints.paused_at}), per-key ordering ({@code ordered},
 * {@code deliveries.ordering_key}), custom headers ({@code custom_headers}) and the trace context
 * of each delivery ({@code deliveries.traceparent}); 5 indexes due deliveries by endpoint
 * ({@code deliveries_endpoint_due}), so that a claim's cost does not grow with a backlog. A new
 * database runs {@link #schemaStatements()}; one made by an earlier version runs
 * {@link #upgradeStatements(int)}, whose statements change nothing where they are already applied.
 */
public final class DeliverySchema {

    /** The schema version {@link #schemaSql()} creates. */
    public static final int VERSION = 5;

    // a lambda of this module, which encapsulates the scripts' resources
    private static final SchemaScripts SCRIPTS = new SchemaScripts(
            "/dev/retrysafe/delivery/delivery", VERSION, name -> DeliverySchema.class.getResourceAsStream(name));

    private DeliverySchema() {}

    /**
     * The whole script of the current version: several statements, each ended by {@code ;} at
     * the end of a line, and {@code --} comment lines. Both drivers accept it in one
     * {@code Statement.execute}; to run the statements one by one use {@link #schemaStatements()}.
     */
    public static String schemaSql() {
        return SCRIPTS.text();
    }

    /** The statements of {@link #schemaSql()}, in order, without comments or terminators. */
    public static List<String> schemaStatements() {
        return SCRIPTS.statements();
    }

    /**
     * The statements that bring tables made by version {@code fromVersion} (1 to
     * {@link #VERSION}) of the script to the current version, in order; none for the current
     * version. Each is idempotent ({@code ... IF NOT EXISTS}), so a migration may run them
     * on tables that {@link #schemaStatements()} already made current.
     *
     * @throws IllegalArgumentException if {@code fromVersion} is not a version
     */
    public static List<String> upgradeStatements(int fromVersion) {
        return SCRIPTS.upgradeStatements(fromVersion);
    }
}

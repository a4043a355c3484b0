package dev.retrysafe.testkit;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/** Looks at a schema through JDBC metadata, alike on H2 and PostgreSQL. Stateless and threadsafe. */
public final class SchemaInspection {

    private SchemaInspection() {}

    /**
     * The names, in lower case, of the indexes of {@code table}, whichever case the database
     * keeps unquoted names in (H2 upper, PostgreSQL lower).
     */
    public static Set<String> indexNames(Connection c, String table) throws SQLException {
        Set<String> names = new TreeSet<>();
        for (String name : Set.of(table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT))) {
            try (ResultSet r = c.getMetaData().getIndexInfo(null, null, name, false, false)) {
                while (r.next()) {
                    String index = r.getString("INDEX_NAME");
                    if (index != null) {
                        names.add(index.toLowerCase(Locale.ROOT));
                    }
                }
            }
        }
        return names;
    }
}

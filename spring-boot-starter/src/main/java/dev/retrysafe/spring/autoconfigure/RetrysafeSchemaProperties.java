package dev.retrysafe.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Retrysafe's tables on the application's DataSource ({@code retrysafe.schema.*}). */
@ConfigurationProperties("retrysafe.schema")
public class RetrysafeSchemaProperties {

    /** Whether the starter creates and migrates every Retrysafe table at start. */
    private boolean enabled = true;

    /**
     * Whether the migrations run through Flyway when Flyway is on the classpath (a Flyway of
     * Retrysafe's own, with its own history table); otherwise the starter runs them itself.
     */
    private boolean useFlyway = true;

    /** The history table of Retrysafe's migrations, apart from the application's own. */
    private String historyTable = "retrysafe_schema_history";

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isUseFlyway() {
        return useFlyway;
    }

    public void setUseFlyway(boolean useFlyway) {
        this.useFlyway = useFlyway;
    }

    public String getHistoryTable() {
        return historyTable;
    }

    public void setHistoryTable(String historyTable) {
        this.historyTable = historyTable;
    }
}

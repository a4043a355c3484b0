package dev.retrysafe.bench.delivery;

import com.zaxxer.hikari.HikariDataSource;
import dev.retrysafe.delivery.DeliverySchema;
import dev.retrysafe.delivery.NewEndpoint;
import dev.retrysafe.delivery.WebhookEndpoints;
import java.net.URI;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;

/**
 * Creates the delivery tables in an empty database and {@code --endpoints} accounts with one
 * endpoint each, all at the receiver ({@code http://127.0.0.1:PORT/hooks/N}), subscribed to
 * every event type.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.retrysafe.bench.delivery.Setup \
 *     --db jdbc:postgresql://127.0.0.1:5432/NAME --user postgres --port 18090 --endpoints 16
 * </pre>
 */
public final class Setup {

    private Setup() {}

    /** Runs the setup. */
    public static void main(String[] args) throws Exception {
        Options o = new Options(args);
        int endpoints = o.integer("endpoints", 16);
        try (HikariDataSource db = Instance.pool(o.string("db"), o.string("user", "postgres"), 2)) {
            try (Connection c = db.getConnection();
                    Statement s = c.createStatement()) {
                s.execute(DeliverySchema.schemaSql());
            }
            WebhookEndpoints store = WebhookEndpoints.builder(db).build();
            for (int n = 0; n < endpoints; n++) {
                store.create(
                        Instance.account(n),
                        new NewEndpoint(
                                URI.create("http://127.0.0.1:" + o.integer("port", 18090) + "/hooks/" + n),
                                Set.of("*"),
                                "bench"));
            }
        }
        System.out.println(
                "setup: delivery schema version " + DeliverySchema.VERSION + ", " + endpoints + " endpoints");
    }
}

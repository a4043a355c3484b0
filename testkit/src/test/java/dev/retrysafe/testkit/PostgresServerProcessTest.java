package dev.retrysafe.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class PostgresServerProcessTest {

    @Test
    void keepsCommittedDataAcrossACrashAndARestartOnTheSamePort() throws SQLException {
        try (PostgresServerProcess pg = PostgresServerProcess.start()) {
            // given a database with a committed row
            pg.createDatabase("kept");
            try (Connection c = pg.connect("kept");
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (v INT)");
                s.execute("INSERT INTO t VALUES (42)");
            }
            int port = pg.port();

            // when it crashes, then nobody can connect
            pg.stop(true);
            assertThat(pg.isRunning()).isFalse();
            assertThatThrownBy(() -> pg.connect("kept").close()).isInstanceOf(SQLException.class);

            // when it is started again, then the row is there, on the same port
            pg.restart();
            assertThat(pg.port()).isEqualTo(port);
            assertThat(pg.isRunning()).isTrue();
            try (Connection c = pg.connect("kept");
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v FROM t")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(42);
            }

            // and a clean stop works as well
            pg.stop(false);
            assertThat(pg.isRunning()).isFalse();
        }
    }

    @Test
    void closeStopsTheServerAndDeletesItsCluster() {
        PostgresServerProcess pg = PostgresServerProcess.start();
        pg.close();
        assertThat(pg.isRunning()).isFalse();
        assertThatThrownBy(() -> pg.connect("postgres").close()).isInstanceOf(SQLException.class);
        pg.close(); // closing twice is harmless
    }
}

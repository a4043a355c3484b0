package dev.retrysafe.testkit;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** What the test fixtures' data sources leave out of {@link DataSource}, answered once. */
interface FixtureDataSource extends DataSource {

    @Override
    default void setLogWriter(PrintWriter out) {
        throw new UnsupportedOperationException("not needed by tests");
    }

    @Override
    default Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no parent logger");
    }

    @Override
    default <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper of " + iface);
    }

    @Override
    default boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}

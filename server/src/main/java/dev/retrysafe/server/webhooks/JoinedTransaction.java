package dev.retrysafe.server.webhooks;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that hands out the request's transaction (bound by the idempotency filter), so
 * the delivery store, which opens and commits transactions of its own, writes in it instead: the
 * change and the stored idempotent answer then commit or roll back together. The connections it
 * hands out ignore {@code close}, {@code commit}, {@code rollback} and {@code setAutoCommit};
 * the filter owns the transaction, and a store failure reaches it as an exception, on which it
 * rolls everything back. One instance per request; not threadsafe.
 */
final class JoinedTransaction implements DataSource {

    private final Connection joined;

    JoinedTransaction(Connection requestTransaction) {
        Connection target = requestTransaction;
        this.joined = (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "close", "commit", "rollback", "setAutoCommit" -> null;
                    case "getAutoCommit" -> Boolean.FALSE;
                    case "isClosed" -> target.isClosed();
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "toString" -> "JoinedTransaction[" + target + "]";
                    default -> {
                        try {
                            yield method.invoke(target, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }
                });
    }

    @Override
    public Connection getConnection() {
        return joined;
    }

    @Override
    public Connection getConnection(String username, String password) {
        return joined;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        throw new SQLFeatureNotSupportedException("no log writer");
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        throw new SQLFeatureNotSupportedException("no log writer");
    }

    @Override
    public void setLoginTimeout(int seconds) {
        // connections are never opened here
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper of " + iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}

package dev.retrysafe.webhooks;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A fixed pool of connections for the concurrency tests, so that 10,000 claims do not open 10,000
 * PostgreSQL connections; counts borrowed connections so tests can assert none leaked.
 * Threadsafe.
 */
final class ConnectionPool implements DataSource, AutoCloseable {

    private final BlockingQueue<Connection> idle;
    private final AtomicInteger borrowed = new AtomicInteger();

    ConnectionPool(DataSource source, int size) throws SQLException {
        this.idle = new ArrayBlockingQueue<>(size);
        for (int i = 0; i < size; i++) {
            idle.add(source.getConnection());
        }
    }

    int borrowed() {
        return borrowed.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection physical;
        try {
            physical = idle.poll(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for a connection", e);
        }
        if (physical == null) {
            throw new SQLException("no connection free within 30 s: a test leaks connections");
        }
        if (!physical.getAutoCommit()) {
            physical.rollback();
            physical.setAutoCommit(true);
        }
        borrowed.incrementAndGet();
        AtomicBoolean returned = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        if (returned.compareAndSet(false, true)) {
                            borrowed.decrementAndGet();
                            idle.add(physical);
                        }
                        return null;
                    }
                    if (method.getName().equals("isClosed")) {
                        return returned.get();
                    }
                    try {
                        return method.invoke(physical, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public void close() throws SQLException {
        for (Connection c; (c = idle.poll()) != null; ) {
            c.close();
        }
    }

    @Override
    public Connection getConnection(String user, String password) {
        throw new UnsupportedOperationException("not needed by tests");
    }

    @Override
    public PrintWriter getLogWriter() {
        throw new UnsupportedOperationException("not needed by tests");
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        throw new UnsupportedOperationException("not needed by tests");
    }

    @Override
    public void setLoginTimeout(int seconds) {
        throw new UnsupportedOperationException("not needed by tests");
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return false;
    }
}

package dev.retrysafe.testkit;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A small fixed pool over another data source, so that thousands of short transactions on
 * PostgreSQL do not each open a connection. Counts borrowed connections so tests can assert none
 * leaked. Threadsafe.
 */
public final class PooledDataSource implements FixtureDataSource, AutoCloseable {

    private final BlockingQueue<Connection> idle = new LinkedBlockingQueue<>();
    private final AtomicInteger borrowed = new AtomicInteger();

    /** A pool of {@code size} connections opened now from {@code source}. */
    public PooledDataSource(DataSource source, int size) throws SQLException {
        for (int i = 0; i < size; i++) {
            idle.add(source.getConnection());
        }
    }

    /** Connections handed out and not yet closed. */
    public int borrowed() {
        return borrowed.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection physical;
        try {
            physical = idle.poll(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for a pooled connection", e);
        }
        if (physical == null) {
            throw new SQLException("no pooled connection free within 30 s: connections leak");
        }
        if (!physical.getAutoCommit()) {
            physical.rollback();
            physical.setAutoCommit(true);
        }
        borrowed.incrementAndGet();
        AtomicBoolean returned = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "close" -> {
                            if (returned.compareAndSet(false, true)) {
                                borrowed.decrementAndGet();
                                idle.add(physical);
                            }
                            return null;
                        }
                        case "isClosed" -> {
                            return returned.get();
                        }
                        default -> {
                            try {
                                return method.invoke(physical, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }
                    }
                });
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("pooled connections have one user");
    }

    @Override
    public void close() throws SQLException {
        for (Connection c; (c = idle.poll()) != null; ) {
            c.close();
        }
    }

    @Override
    public PrintWriter getLogWriter() {
        return new PrintWriter(System.err);
    }

    @Override
    public void setLoginTimeout(int seconds) {
        throw new UnsupportedOperationException("not needed by tests");
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }
}

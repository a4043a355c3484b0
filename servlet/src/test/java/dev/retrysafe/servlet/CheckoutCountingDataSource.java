package dev.retrysafe.servlet;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Wraps a pool and counts the connections checked out of it: at once in all, and at once by one
 * thread (a synchronous servlet request runs on one thread, so that is per request). Remembers
 * every failure to get a connection (a pool's timeout). Threadsafe.
 */
final class CheckoutCountingDataSource implements DataSource {

    private final DataSource pool;
    private final AtomicInteger checkedOut = new AtomicInteger();
    private final AtomicInteger maxCheckedOut = new AtomicInteger();
    private final AtomicInteger maxByOneThread = new AtomicInteger();
    private final ThreadLocal<AtomicInteger> byThisThread = ThreadLocal.withInitial(AtomicInteger::new);
    private final ConcurrentLinkedQueue<SQLException> failures = new ConcurrentLinkedQueue<>();

    CheckoutCountingDataSource(DataSource pool) {
        this.pool = pool;
    }

    /** Connections checked out and not closed yet. */
    int checkedOut() {
        return checkedOut.get();
    }

    /** The most connections checked out at once, by all threads. */
    int maxCheckedOut() {
        return maxCheckedOut.get();
    }

    /** The most connections one thread held at once. */
    int maxByOneThread() {
        return maxByOneThread.get();
    }

    /** Every failure to get a connection so far. */
    List<SQLException> failures() {
        return List.copyOf(failures);
    }

    /** Forgets the maxima and failures (not the connections checked out now). */
    void reset() {
        maxCheckedOut.set(checkedOut.get());
        maxByOneThread.set(0);
        failures.clear();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection;
        try {
            connection = pool.getConnection();
        } catch (SQLException e) {
            failures.add(e);
            throw e;
        }
        AtomicInteger mine = byThisThread.get();
        maxByOneThread.accumulateAndGet(mine.incrementAndGet(), Math::max);
        maxCheckedOut.accumulateAndGet(checkedOut.incrementAndGet(), Math::max);
        AtomicBoolean closed = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close") && closed.compareAndSet(false, true)) {
                        mine.decrementAndGet(); // the opener's count, whichever thread closes
                        checkedOut.decrementAndGet();
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the pool has one user");
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return pool.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return pool.isWrapperFor(iface);
    }
}

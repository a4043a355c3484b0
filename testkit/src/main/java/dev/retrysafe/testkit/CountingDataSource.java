package dev.retrysafe.testkit;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A DataSource over {@link DriverManager} that counts connections not yet closed, so tests can
 * assert that none leaked. (Driver DataSource classes need java.naming, which this module's
 * descriptor rightly does not read.)
 */
public final class CountingDataSource implements FixtureDataSource {

    private final String url;
    private final Properties properties = new Properties();
    private final AtomicInteger open = new AtomicInteger();
    private int loginTimeout;

    /** A data source connecting to {@code url} as {@code user} (empty: no user). */
    public CountingDataSource(String url, String user) {
        this.url = url;
        if (!user.isEmpty()) {
            properties.setProperty("user", user);
        }
    }

    /** How many connections handed out are not closed yet. */
    public int openConnections() {
        return open.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return track(DriverManager.getConnection(url, properties));
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        return track(DriverManager.getConnection(url, p));
    }

    private Connection track(Connection connection) {
        open.incrementAndGet();
        AtomicBoolean closed = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close") && closed.compareAndSet(false, true)) {
                        open.decrementAndGet();
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public PrintWriter getLogWriter() {
        return DriverManager.getLogWriter();
    }

    @Override
    public void setLoginTimeout(int seconds) {
        loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeout;
    }
}

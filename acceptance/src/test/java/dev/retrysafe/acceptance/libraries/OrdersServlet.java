package dev.retrysafe.acceptance.libraries;

import dev.retrysafe.servlet.RequestTransaction;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * {@code POST /v1/orders} creates an order; {@code GET /v1/orders} lists the caller's orders.
 *
 * <p>The POST runs behind Retrysafe's idempotency step with a key required, so a transaction is
 * bound to the request: the insert goes through its connection, and the filter stores the answer
 * in that same transaction and commits it. The GET carries no key and has no bound transaction:
 * it reads through the pool. This class is threadsafe.
 */
public final class OrdersServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient DataSource dataSource;

    /** Orders in {@code dataSource}, the one the idempotency filter was built with. */
    public OrdersServlet(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        // the request's transaction: never commit, roll back or close it; the filter does
        Connection transaction = Objects.requireNonNull(
                RequestTransaction.connection(request), "no transaction: mapped behind authentication and Retrysafe?");
        String id = "ord_" + UUID.randomUUID().toString().replace("-", "");
        String order = new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try (PreparedStatement insert =
                transaction.prepareStatement("INSERT INTO orders (id, account, body) VALUES (?, ?, ?)")) {
            insert.setString(1, id);
            insert.setString(2, BearerAuthentication.account(request));
            insert.setString(3, order);
            insert.executeUpdate();
        } catch (SQLException e) {
            // the filter rolls back, lets the key go and answers 500 (503 if the database is down)
            throw new IOException("could not insert order " + id, e);
        }
        response.setStatus(201);
        response.setHeader("Location", "/v1/orders/" + id);
        writeJson(response, "{\"id\":\"" + id + "\",\"status\":\"created\"}");
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        StringJoiner ids = new StringJoiner("\",\"", "{\"orders\":[\"", "\"]}").setEmptyValue("{\"orders\":[]}");
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT id FROM orders WHERE account = ? ORDER BY id")) {
            select.setString(1, BearerAuthentication.account(request));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    ids.add(rows.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IOException("could not list orders", e);
        }
        response.setStatus(200);
        writeJson(response, ids.toString());
    }

    private static void writeJson(HttpServletResponse response, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        response.setContentType("application/json");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}

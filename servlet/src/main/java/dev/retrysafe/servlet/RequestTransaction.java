package dev.retrysafe.servlet;

import jakarta.servlet.ServletRequest;
import java.sql.Connection;
import org.jspecify.annotations.Nullable;

/**
 * The database transaction that {@link IdempotencyFilter} bound to a request. A handler behind
 * the filter writes its effects through {@link #connection(ServletRequest)}; the filter writes
 * the stored answer into the same transaction and commits, or rolls everything back when the
 * handler answers 5xx or throws. Handlers never commit, roll back or close this connection.
 */
public final class RequestTransaction {

    /** Request attribute under which the filter binds the transaction's {@link Connection}. */
    public static final String CONNECTION_ATTRIBUTE = "dev.retrysafe.servlet.connection";
    /** Request attribute under which the filter binds the request's idempotency key (a String). */
    public static final String KEY_ATTRIBUTE = "dev.retrysafe.servlet.idempotencyKey";

    private RequestTransaction() {}

    /** The connection of the transaction bound to this request, or {@code null} if none is. */
    public static @Nullable Connection connection(ServletRequest request) {
        return (Connection) request.getAttribute(CONNECTION_ATTRIBUTE);
    }

    /** The idempotency key of this request (already validated and unquoted), or {@code null}. */
    public static @Nullable String idempotencyKey(ServletRequest request) {
        return (String) request.getAttribute(KEY_ATTRIBUTE);
    }
}

package dev.retrysafe.server.http;

import dev.retrysafe.server.accounts.Account;
import jakarta.servlet.ServletRequest;
import org.jspecify.annotations.Nullable;

/** The authenticated account of a request, put there by {@link AuthFilter}. */
public final class RequestAccount {

    /** The request attribute holding the {@link Account}. */
    public static final String ATTRIBUTE = "dev.retrysafe.server.account";
    /** The request attribute holding the id of the API key used ({@code key_} + 16 hex digits). */
    public static final String KEY_ID_ATTRIBUTE = "dev.retrysafe.server.api-key-id";

    private RequestAccount() {}

    /** The request's account, or {@code null} when it is not authenticated. */
    public static @Nullable Account of(ServletRequest request) {
        return (Account) request.getAttribute(ATTRIBUTE);
    }

    /** The request's account id, or {@code null}: the idempotency filter's scope. */
    public static @Nullable String idOf(ServletRequest request) {
        Account account = of(request);
        return account == null ? null : account.id();
    }

    /** The id of the request's API key, or {@code null} when it is not authenticated. */
    public static @Nullable String keyIdOf(ServletRequest request) {
        return (String) request.getAttribute(KEY_ID_ATTRIBUTE);
    }

    /** The request's account; only for routes behind {@link AuthFilter}. */
    public static Account require(ServletRequest request) {
        Account account = of(request);
        if (account == null) {
            throw new IllegalStateException("route is not behind AuthFilter: no account on the request");
        }
        return account;
    }
}

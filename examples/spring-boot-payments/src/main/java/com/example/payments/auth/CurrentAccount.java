package com.example.payments.auth;

import jakarta.servlet.http.HttpServletRequest;

/** The account {@link BearerAuthFilter} authenticated, as a request attribute. */
public final class CurrentAccount {

    /** The request attribute holding the account id. */
    static final String ATTRIBUTE = "com.example.payments.account";

    private CurrentAccount() {}

    /** The id of the request's account; the filter has refused every request without one. */
    public static String of(HttpServletRequest request) {
        Object account = request.getAttribute(ATTRIBUTE);
        if (!(account instanceof String id)) {
            throw new IllegalStateException("no account on a request under /v1/: is BearerAuthFilter registered?");
        }
        return id;
    }
}

package dev.retrysafe.idempotency;

/**
 * Where a key is unique: the account that sent it, the route it was sent to, and the key itself.
 * The same key string on two routes or from two accounts are two unrelated scopes. Immutable and
 * threadsafe.
 *
 * @param account the account id, 1 to {@value #MAX_ACCOUNT_LENGTH} characters, no NUL
 * @param route the method and route template joined by one space, e.g.
 *     {@code POST /v1/payments/{id}/capture}; 1 to {@value #MAX_ROUTE_LENGTH} characters, no NUL
 * @param key the idempotency key
 */
public record Scope(String account, String route, IdempotencyKey key) {

    /** Longest account id, in characters (the width of the store's column). */
    public static final int MAX_ACCOUNT_LENGTH = 255;
    /** Longest route, in characters (the width of the store's column). */
    public static final int MAX_ROUTE_LENGTH = 512;

    /** Checks the bounds the store's columns impose. */
    public Scope {
        checkText("account", account, MAX_ACCOUNT_LENGTH);
        checkText("route", route, MAX_ROUTE_LENGTH);
    }

    /** The scope of {@code key} sent by {@code account} to {@code method} {@code routeTemplate}. */
    public static Scope of(String account, String method, String routeTemplate, IdempotencyKey key) {
        return new Scope(account, method + " " + routeTemplate, key);
    }

    private static void checkText(String name, String value, int maxLength) {
        if (value.isEmpty() || value.length() > maxLength || value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(
                    name + " must be 1 to " + maxLength + " characters without NUL: \"" + value + "\"");
        }
    }
}

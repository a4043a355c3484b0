package dev.retrysafe.server.http;

import dev.retrysafe.servlet.IdempotencyFilter;
import java.util.List;

/**
 * Which routes of the server take an {@code Idempotency-Key}: it is required on
 * {@link #KEY_REQUIRED} and optional, but honoured, on every other {@code POST}. The one source of
 * the idempotency filter's routes and of the test that the OpenAPI document says the same, so the
 * two cannot part ways. Immutable and threadsafe.
 */
public final class IdempotentRoutes {

    /** The routes that refuse a request without a key, as {@code "POST /v1/payments"} (templates). */
    public static final List<String> KEY_REQUIRED =
            List.of("POST /v1/payments", "POST /v1/refunds", "POST /v1/reports");
    /** Every other POST honours a key when one is sent. */
    private static final boolean HONOUR_EVERY_POST = true;

    /** Whether a key is taken on a route. */
    public enum KeyUse {
        /** A request without one is refused with {@code 400}. */
        REQUIRED,
        /** A request may send one; a retry with it gets the first answer. */
        OPTIONAL,
        /** A key is not looked at. */
        IGNORED
    }

    private IdempotentRoutes() {}

    /** {@code builder} with these routes: the required ones, and every other {@code POST} honoured. */
    public static IdempotencyFilter.Builder configure(IdempotencyFilter.Builder builder) {
        for (String route : KEY_REQUIRED) {
            int space = route.indexOf(' ');
            builder.route(route.substring(0, space), route.substring(space + 1), true);
        }
        return builder.honourEveryPost(HONOUR_EVERY_POST);
    }

    /** How the route {@code method} {@code template} (such as {@code POST /v1/refunds}) takes a key. */
    public static KeyUse keyUse(String method, String template) {
        if (KEY_REQUIRED.contains(method + " " + template)) {
            return KeyUse.REQUIRED;
        }
        return HONOUR_EVERY_POST && method.equals("POST") ? KeyUse.OPTIONAL : KeyUse.IGNORED;
    }
}

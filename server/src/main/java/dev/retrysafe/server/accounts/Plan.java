package dev.retrysafe.server.accounts;

import java.util.List;

/** The plans an account can be on; they will scale rate-limit quotas. */
public final class Plan {

    /** Every plan, cheapest first. */
    public static final List<String> ALL = List.of("free", "pro", "enterprise");

    private Plan() {}

    /** Whether {@code name} is a plan. */
    public static boolean exists(String name) {
        return ALL.contains(name);
    }
}

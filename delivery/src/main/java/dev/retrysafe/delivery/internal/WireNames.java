package dev.retrysafe.delivery.internal;

import java.util.Locale;

/**
 * The names this module's enums are stored and shown under: the constant's name in lower case
 * ({@code PENDING} is {@code pending}). Stateless and threadsafe.
 */
public final class WireNames {

    private WireNames() {}

    /** The stored and shown name of {@code constant}. */
    public static String of(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT);
    }

    /**
     * The constant of {@code type} stored as {@code name}.
     *
     * @throws IllegalArgumentException naming {@code what} if no constant has that name
     */
    public static <E extends Enum<E>> E parse(Class<E> type, String name, String what) {
        for (E constant : type.getEnumConstants()) {
            if (of(constant).equals(name)) {
                return constant;
            }
        }
        throw new IllegalArgumentException("unknown " + what + ": " + name);
    }
}

package com.example.payments.api;

import com.example.payments.Ids;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@code limit} (1..100, default 20) and {@code starting_after} parameters of a list, checked
 * as the Retrysafe server checks them.
 *
 * @param limit 1..100
 * @param startingAfter the id after which the page starts (older items), or {@code null}
 */
public record ListQuery(int limit, @Nullable String startingAfter) {

    /** Items per page when {@code limit} is not given. */
    public static final int DEFAULT_LIMIT = 20;
    /** Largest {@code limit}. */
    public static final int MAX_LIMIT = 100;

    /**
     * Validates the raw parameters of a list of ids starting with {@code idPrefix}.
     *
     * @throws InvalidRequestException naming each bad parameter
     */
    public static ListQuery parse(@Nullable String limit, @Nullable String startingAfter, String idPrefix) {
        List<FieldError> errors = new ArrayList<>();
        int n = DEFAULT_LIMIT;
        if (limit != null) {
            try {
                n = Integer.parseInt(limit);
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n < 1 || n > MAX_LIMIT) {
                errors.add(new FieldError("limit", "must be an integer between 1 and " + MAX_LIMIT));
            }
        }
        if (startingAfter != null && !Ids.looksLike(idPrefix, startingAfter)) {
            errors.add(new FieldError("starting_after", "must be an id (" + idPrefix + "...)"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidRequestException(errors);
        }
        return new ListQuery(n, startingAfter);
    }
}

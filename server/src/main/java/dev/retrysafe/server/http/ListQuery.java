package dev.retrysafe.server.http;

import dev.retrysafe.server.db.Ids;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The {@code limit} and {@code starting_after} parameters of a list.
 *
 * @param limit 1..100
 * @param startingAfter the id after which the page starts (older items), or {@code null}
 */
public record ListQuery(int limit, @Nullable String startingAfter) {

    /** Items per page when {@code limit} is not given. */
    public static final int DEFAULT_LIMIT = 20;
    /** Largest {@code limit}. */
    public static final int MAX_LIMIT = 100;

    /** The outcome of reading the parameters. */
    public sealed interface Parsed permits Valid, Invalid {}

    /** The parameters are valid. @param query the query */
    public record Valid(ListQuery query) implements Parsed {}

    /** They are not. @param errors one entry per bad parameter */
    public record Invalid(List<FieldError> errors) implements Parsed {}

    /** Validates the raw parameters; {@code idPrefix} is the prefix of the listed ids (made by {@link Ids}). */
    public static Parsed parse(@Nullable String limit, @Nullable String startingAfter, String idPrefix) {
        return parse(limit, startingAfter, idPrefix, id -> Ids.looksLike(idPrefix, id));
    }

    /**
     * Validates the raw parameters of a list whose ids have a form of their own: {@code plausibleId}
     * tells whether {@code starting_after} has it; {@code idPrefix} names it in the message.
     */
    public static Parsed parse(
            @Nullable String limit, @Nullable String startingAfter, String idPrefix, Predicate<String> plausibleId) {
        List<FieldError> errors = new ArrayList<>();
        OptionalInt n = QueryInts.inRange(limit, DEFAULT_LIMIT, 1, MAX_LIMIT);
        if (n.isEmpty()) {
            errors.add(QueryInts.outOfRange("limit", 1, MAX_LIMIT));
        }
        if (startingAfter != null && !plausibleId.test(startingAfter)) {
            errors.add(new FieldError("starting_after", "must be an id (" + idPrefix + "...)"));
        }
        return errors.isEmpty() ? new Valid(new ListQuery(n.getAsInt(), startingAfter)) : new Invalid(errors);
    }
}

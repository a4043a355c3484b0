package dev.retrysafe.server.reports;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.server.http.BodyFields;
import dev.retrysafe.server.http.FieldError;
import dev.retrysafe.server.payments.Validated;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A valid {@code POST /v1/reports} body: {@code {"kind": "payments_csv", "from": ..., "to": ...}}.
 *
 * @param kind what to build; only {@value #PAYMENTS_CSV} so far
 * @param from the first creation time included, or {@code null} for the account's first payment
 * @param to   the first creation time excluded, after {@code from}; when the body leaves it out,
 *             the moment the report was asked for (so the report never changes with payments made
 *             while it runs)
 */
public record ReportRequest(String kind, @Nullable Instant from, Instant to) {

    /** Every payment of the account in the range, as CSV. */
    public static final String PAYMENTS_CSV = "payments_csv";

    /** Validates {@code body}, asked for at {@code now}. */
    public static Validated<ReportRequest> parse(ObjectNode body, Instant now) {
        BodyFields f = new BodyFields(body, Set.of("kind", "from", "to"));
        String kind = f.string("kind", true, 64);
        if (kind != null && !PAYMENTS_CSV.equals(kind)) {
            f.reject("kind", "must be " + PAYMENTS_CSV);
        }
        Instant from = f.time("from", false);
        Instant to = f.time("to", false);
        boolean toGiven = body.hasNonNull("to");
        if (!toGiven) {
            to = now;
        }
        if (from != null && to != null && !from.isBefore(to)) {
            if (toGiven) {
                f.reject("to", "must be after from");
            } else {
                // an empty range, although the client never wrote one: say which end to move
                f.reject("from", "must be before the time of the request when to is left out");
            }
        }
        List<FieldError> errors = f.errors();
        if (!errors.isEmpty() || kind == null || to == null) {
            return new Validated.Invalid<>(errors);
        }
        return new Validated.Valid<>(new ReportRequest(kind, from, to));
    }
}

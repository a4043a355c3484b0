package dev.retrysafe.server.payments;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.retrysafe.server.http.JsonBody;
import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.Problems;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.function.Function;

/** Reads and validates the JSON body of a create request, answering the problem when it fails. */
public final class RequestBodies {

    private RequestBodies() {}

    /**
     * The validated request, or empty when the body was refused (too large, wrong type, not JSON,
     * invalid fields), in which case the problem has been answered already.
     */
    public static <T> Optional<T> read(Context ctx, int maxBodyBytes, Function<ObjectNode, Validated<T>> validate)
            throws Exception {
        JsonBody.Result body = JsonBody.read(ctx, maxBodyBytes);
        if (body instanceof JsonBody.Rejected r) {
            Problems.respond(ctx, r.problem());
            return Optional.empty();
        }
        return switch (validate.apply(((JsonBody.Parsed) body).object())) {
            case Validated.Valid<T> valid -> Optional.of(valid.request());
            case Validated.Invalid<T> invalid -> {
                Problems.respond(ctx, Problem.invalid(invalid.errors()));
                yield Optional.empty();
            }
        };
    }
}

package dev.retrysafe.server.events;

import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.http.FieldError;
import dev.retrysafe.server.http.ListQuery;
import dev.retrysafe.server.http.Page;
import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.Problems;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.Responses;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/** The handlers of {@code /v1/events}. This class is threadsafe. */
public final class EventRoutes {

    private static final Pattern TYPE = Pattern.compile("[a-z0-9_]{1,40}(\\.[a-z0-9_]{1,40}){0,4}");
    private static final int MAX_TYPE_LENGTH = 60;

    private final Transactions transactions;

    /** Handlers reading through {@code transactions}. */
    public EventRoutes(Transactions transactions) {
        this.transactions = transactions;
    }

    /** {@code GET /v1/events/{id}}. */
    public void get(Context ctx) throws SQLException {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        Optional<Map<String, Object>> found = Ids.looksLike("evt_", id)
                ? transactions.inNewTransaction(c -> EventStore.find(c, account.id(), id))
                : Optional.empty();
        found.ifPresentOrElse(
                e -> Responses.json(ctx, 200, e), () -> Problems.respond(ctx, Problem.notFound("event", "evt_", id)));
    }

    /** Whether the account has the event {@code id}. */
    public boolean has(String accountId, String id) throws SQLException {
        return transactions
                .inNewTransaction(c -> EventStore.find(c, accountId, id))
                .isPresent();
    }

    /** {@code GET /v1/events?type=&limit=&starting_after=}, newest first. */
    public void list(Context ctx) throws SQLException {
        Account account = RequestAccount.require(ctx.req());
        List<FieldError> errors = new ArrayList<>();
        String type = ctx.queryParam("type");
        if (type != null
                && (type.length() > MAX_TYPE_LENGTH || !TYPE.matcher(type).matches())) {
            errors.add(new FieldError("type", "must be an event type such as payment.succeeded"));
        }
        ListQuery.Parsed parsed = ListQuery.parse(ctx.queryParam("limit"), ctx.queryParam("starting_after"), "evt_");
        if (parsed instanceof ListQuery.Invalid invalid) {
            errors.addAll(invalid.errors());
        }
        if (!errors.isEmpty()) {
            Problems.respond(ctx, Problem.invalid(errors));
            return;
        }
        ListQuery query = ((ListQuery.Valid) parsed).query();
        Page<Map<String, Object>> page =
                transactions.inNewTransaction(c -> EventStore.list(c, account.id(), type, query));
        Responses.json(ctx, 200, page.json(Function.identity()));
    }
}

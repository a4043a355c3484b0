package dev.retrysafe.server.payments;

import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.db.Ids;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.http.ListQuery;
import dev.retrysafe.server.http.Page;
import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.Problems;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.Responses;
import io.javalin.http.Context;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Function;

/**
 * The two reads every resource has: one by id ({@code GET /v1/<things>/{id}}) and a page of the
 * account's own ({@code GET /v1/<things>}), both scoped to the caller's account so that another
 * account's id is a 404 like an unknown one.
 */
final class ResourceReads {

    /** Finds one of the account's resources by id. */
    @FunctionalInterface
    interface Finder<T> {
        Optional<T> find(Connection c, String accountId, String id) throws SQLException;
    }

    /** Lists a page of the account's resources. */
    @FunctionalInterface
    interface Lister<T> {
        Page<T> list(Connection c, String accountId, ListQuery query) throws SQLException;
    }

    private ResourceReads() {}

    /** Answers the resource with the id in the path, or a 404 problem naming {@code noun}. */
    static <T> void one(
            Context ctx,
            Transactions transactions,
            String idPrefix,
            String noun,
            Finder<T> finder,
            Function<T, Object> render)
            throws SQLException {
        Account account = RequestAccount.require(ctx.req());
        String id = ctx.pathParam("id");
        Optional<T> found = Ids.looksLike(idPrefix, id)
                ? transactions.inNewTransaction(c -> finder.find(c, account.id(), id))
                : Optional.empty();
        found.ifPresentOrElse(
                r -> Responses.json(ctx, 200, render.apply(r)),
                () -> Problems.respond(ctx, Problem.notFound(noun, idPrefix, id)));
    }

    /** Answers a page selected by {@code ?limit=&starting_after=}, newest first, or a 400 problem. */
    static <T> void page(
            Context ctx, Transactions transactions, String idPrefix, Lister<T> lister, Function<T, ?> render)
            throws SQLException {
        Account account = RequestAccount.require(ctx.req());
        ListQuery.Parsed parsed = ListQuery.parse(ctx.queryParam("limit"), ctx.queryParam("starting_after"), idPrefix);
        if (parsed instanceof ListQuery.Invalid invalid) {
            Problems.respond(ctx, Problem.invalid(invalid.errors()));
            return;
        }
        ListQuery query = ((ListQuery.Valid) parsed).query();
        Page<T> page = transactions.inNewTransaction(c -> lister.list(c, account.id(), query));
        Responses.json(ctx, 200, page.json(render));
    }
}

package dev.retrysafe.server.payments;

import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.ProblemType;
import dev.retrysafe.server.http.Problems;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.Responses;
import io.javalin.http.Context;
import java.util.Optional;

/** The handlers of {@code /v1/refunds}. This class is threadsafe. */
public final class RefundRoutes {

    private final Transactions transactions;
    private final Refunds refunds;
    private final int maxBodyBytes;

    /** Handlers creating refunds with {@code refunds}. */
    public RefundRoutes(Transactions transactions, Refunds refunds, int maxBodyBytes) {
        this.transactions = transactions;
        this.refunds = refunds;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** {@code POST /v1/refunds}. */
    public void create(Context ctx) throws Exception {
        Account account = RequestAccount.require(ctx.req());
        Optional<RefundRequest> read = RequestBodies.read(ctx, maxBodyBytes, RefundRequest::parse);
        if (read.isEmpty()) {
            return;
        }
        RefundRequest request = read.get();
        Refunds.Outcome outcome = transactions.inTransaction(ctx.req(), c -> refunds.create(c, account, request));
        switch (outcome) {
            case Refunds.Created created -> {
                ctx.header("Location", "/v1/refunds/" + created.refund().id());
                Responses.json(ctx, 201, created.refund().json());
            }
            case Refunds.PaymentNotFound n ->
                Problems.respond(ctx, Problem.notFound("payment", "pay_", request.paymentId()));
            case Refunds.NotRefundable n ->
                Problems.respond(
                        ctx,
                        Problem.of(
                                ProblemType.PAYMENT_NOT_REFUNDABLE,
                                "Payment " + request.paymentId() + " has status '" + n.status()
                                        + "'; only succeeded payments can be refunded."));
            case Refunds.ExceedsRemaining e ->
                Problems.respond(
                        ctx,
                        Problem.of(
                                        ProblemType.REFUND_EXCEEDS_PAYMENT,
                                        "Only " + e.remaining() + " of payment " + request.paymentId()
                                                + " remains to be refunded.")
                                .with("remaining", e.remaining()));
        }
    }

    /** {@code GET /v1/refunds/{id}}. */
    public void get(Context ctx) throws Exception {
        ResourceReads.one(ctx, transactions, "re_", "refund", RefundStore::find, Refund::json);
    }

    /** {@code GET /v1/refunds?limit=&starting_after=}, newest first. */
    public void list(Context ctx) throws Exception {
        ResourceReads.page(ctx, transactions, "re_", RefundStore::list, Refund::json);
    }
}

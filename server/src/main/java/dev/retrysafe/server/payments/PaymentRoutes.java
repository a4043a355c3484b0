package dev.retrysafe.server.payments;

import dev.retrysafe.server.accounts.Account;
import dev.retrysafe.server.db.Transactions;
import dev.retrysafe.server.http.Problem;
import dev.retrysafe.server.http.ProblemType;
import dev.retrysafe.server.http.Problems;
import dev.retrysafe.server.http.RequestAccount;
import dev.retrysafe.server.http.Responses;
import dev.retrysafe.servlet.RequestTransaction;
import io.javalin.http.Context;
import java.util.Optional;

/** The handlers of {@code /v1/payments}. This class is threadsafe. */
public final class PaymentRoutes {

    private final Transactions transactions;
    private final Payments payments;
    private final int maxBodyBytes;

    /** Handlers creating payments with {@code payments}. */
    public PaymentRoutes(Transactions transactions, Payments payments, int maxBodyBytes) {
        this.transactions = transactions;
        this.payments = payments;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** {@code POST /v1/payments}. */
    public void create(Context ctx) throws Exception {
        Account account = RequestAccount.require(ctx.req());
        Optional<PaymentRequest> read = RequestBodies.read(ctx, maxBodyBytes, PaymentRequest::parse);
        if (read.isEmpty()) {
            return;
        }
        PaymentRequest request = read.get();
        String key = RequestTransaction.idempotencyKey(ctx.req());
        Payments.Outcome outcome = transactions.inTransaction(ctx.req(), c -> {
            try {
                return payments.create(c, account, request, key);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.sql.SQLException("interrupted while charging the bank", e);
            }
        });
        switch (outcome) {
            case Payments.Created created -> {
                ctx.header("Location", "/v1/payments/" + created.payment().id());
                Responses.json(ctx, 201, created.payment().json());
            }
            case Payments.BankUnavailable u ->
                Problems.respond(
                        ctx,
                        Problem.of(
                                        ProblemType.BANK_UNAVAILABLE,
                                        "The bank could not process the charge. Nothing was charged; retry with the same Idempotency-Key.")
                                .with("retryable", true)
                                .withHeader("Retry-After", "1"));
            case Payments.ChargeKeyReused r ->
                Problems.respond(
                        ctx,
                        Problem.of(
                                ProblemType.IDEMPOTENCY_KEY_REUSED,
                                "This Idempotency-Key was already used at the bank for a charge of another amount or currency."
                                        + " Nothing was charged; use a new key for a new payment."));
        }
    }

    /** {@code GET /v1/payments/{id}}. */
    public void get(Context ctx) throws Exception {
        ResourceReads.one(ctx, transactions, "pay_", "payment", PaymentStore::find, Payment::json);
    }

    /** {@code GET /v1/payments?limit=&starting_after=}, newest first. */
    public void list(Context ctx) throws Exception {
        ResourceReads.page(ctx, transactions, "pay_", PaymentStore::list, Payment::json);
    }
}

package dev.retrysafe.servlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The operation behind the filter in tests: inserts a payment through the request's transaction
 * and answers 201 JSON with a Location. The {@code X-Test-Behaviour} header (not part of the
 * fingerprint) picks a variant: {@code block} waits for {@link #proceed}, {@code fail500} answers
 * 500, {@code throw} throws, {@code writer} writes through getWriter, {@code senderror} calls
 * sendError(409).
 */
final class PaymentsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** Counted down each time a request has inserted its row and is about to block. */
    final transient CountDownLatch entered;
    /** Lets blocked requests finish. */
    final transient CountDownLatch proceed;

    PaymentsServlet(CountDownLatch entered, CountDownLatch proceed) {
        this.entered = entered;
        this.proceed = proceed;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String behaviour = String.valueOf(request.getHeader("X-Test-Behaviour"));
        String body = behaviour.equals("writer")
                ? request.getReader().lines().collect(Collectors.joining("\n"))
                : new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Connection tx = RequestTransaction.connection(request);
        if (tx == null) {
            response.setStatus(200);
            response.setContentType("text/plain");
            response.getOutputStream().write("untouched".getBytes(StandardCharsets.UTF_8));
            return;
        }
        String id = "pay_" + UUID.randomUUID().toString().replace("-", "");
        insert(tx, id, request.getHeader("X-Account"), RequestTransaction.idempotencyKey(request), body);

        switch (behaviour) {
            case "block" -> {
                entered.countDown();
                awaitProceed();
            }
            case "fail500" -> {
                response.setStatus(500);
                response.setContentType("text/plain");
                response.getOutputStream().write("bank said no".getBytes(StandardCharsets.UTF_8));
                return;
            }
            case "throw" -> throw new IllegalStateException("handler crashed after inserting " + id);
            case "senderror" -> {
                response.sendError(409, "conflict from handler");
                return;
            }
            default -> {}
        }
        String json = "{\"id\":\"" + id + "\",\"key\":\"" + RequestTransaction.idempotencyKey(request)
                + "\",\"request_bytes\":" + body.length() + "}";
        response.setStatus(201);
        response.setHeader("Location", "/v1/payments/" + id);
        response.setHeader("X-Not-Stored", "transient");
        if (behaviour.equals("writer")) {
            response.setContentType("application/json");
            response.setCharacterEncoding("UTF-8");
            PrintWriter writer = response.getWriter();
            writer.write(json);
            response.flushBuffer();
        } else {
            response.setContentType("application/json; charset=utf-8");
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            response.setContentLength(bytes.length);
            response.getOutputStream().write(bytes);
            response.flushBuffer();
        }
    }

    private void awaitProceed() {
        try {
            if (!proceed.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test never let the blocked request proceed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void insert(Connection tx, String id, String account, String key, String body) {
        try (PreparedStatement s =
                tx.prepareStatement("INSERT INTO payments (id, account, idem_key, body) VALUES (?, ?, ?, ?)")) {
            s.setString(1, id);
            s.setString(2, account);
            s.setString(3, key);
            s.setString(4, body);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

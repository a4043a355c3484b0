package dev.retrysafe.server.bank;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Derives the key a payment sends to the bank from the account and the request's idempotency
 * key, so that every retry of one request asks the bank for the same charge (downstream retries
 * stay safe), while the client's raw key never leaves the server.
 */
public final class ChargeKeys {

    private ChargeKeys() {}

    /** {@code ch_} + hex SHA-256 of the account id and the idempotency key. */
    public static String derive(String accountId, String idempotencyKey) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            // the length prefix keeps ("a", "bc") and ("ab", "c") apart
            byte[] digest = sha.digest(
                    (accountId.length() + ":" + accountId + ":" + idempotencyKey).getBytes(StandardCharsets.UTF_8));
            return "ch_" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}

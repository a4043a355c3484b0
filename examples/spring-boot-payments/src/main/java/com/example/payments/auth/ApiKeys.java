package com.example.payments.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The API keys this application accepts: {@code RETRYSAFE_BOOTSTRAP_API_KEYS} ({@code key1,key2}),
 * one account each. Only the keys' SHA-256 hashes are kept, and a presented key is compared by
 * hash in constant time. An account's id is derived from its key's hash, so it is the same after
 * a restart. Keys are never logged. Threadsafe.
 */
@Component
public final class ApiKeys {

    private record Known(byte[] hash, String accountId) {}

    private final List<Known> known;

    /** The keys in {@code keys}, separated by commas. */
    public ApiKeys(@Value("${RETRYSAFE_BOOTSTRAP_API_KEYS:}") String keys) {
        this.known = List.of(keys.split(",")).stream()
                .map(String::strip)
                .filter(k -> !k.isEmpty())
                .map(k -> {
                    byte[] hash = sha256(k);
                    return new Known(hash, "acct_" + HexFormat.of().formatHex(hash, 0, 10));
                })
                .toList();
    }

    /** The account of {@code key}, if it is one of the configured keys. */
    public Optional<String> account(String key) {
        byte[] presented = sha256(key);
        String found = null;
        for (Known k : known) { // every key is compared, so the time does not tell which one matched
            if (MessageDigest.isEqual(k.hash(), presented)) {
                found = k.accountId();
            }
        }
        return Optional.ofNullable(found);
    }

    /** The account of an {@code Authorization} header's Bearer key, if it carries a configured one. */
    public Optional<String> accountOfHeader(@Nullable String authorization) {
        String token = bearerToken(authorization);
        return token == null ? Optional.empty() : account(token);
    }

    /** Whether no key is configured at all (every request would be refused). */
    public boolean isEmpty() {
        return known.isEmpty();
    }

    /** The token of a {@code Bearer} credential (scheme case-insensitive, RFC 9110), or {@code null}. */
    static @Nullable String bearerToken(@Nullable String header) {
        if (header == null) {
            return null;
        }
        String h = header.strip();
        if (h.length() < 7 || !h.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
            return null;
        }
        String token = h.substring(7).strip();
        return token.isEmpty() ? null : token;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
